package main

import (
	"testing"

	"dyno/adapters/go-protocol/workertest"
)

// SHA-256 of 32 zero bytes, from outside this code (FIPS 180-4; coreutils:
// `head -c 32 /dev/zero | sha256sum`).
const zeros = "0x0000000000000000000000000000000000000000000000000000000000000000"
const digest = "0x66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"

func prepare(want string) string {
	return `{"type":"prepare","id":"hash/sha256/32B","implementation":"{{name}}-sha256","cases":[{"input":{"data":"` +
		zeros + `"},"expected":{"digest":"` + want + `"}}]}`
}

func TestSha256IsCheckedThenTimed(t *testing.T) {
	w := workertest.Pipe(t, config)
	if r := w.Call(prepare(digest)); r["type"] != "prepared" {
		t.Fatalf("prepare: %v", r)
	}
	r := w.Call(`{"type":"run","iterations":100,"samples":2}`)
	if ns, ok := r["ns"].([]any); !ok || len(ns) != 2 {
		t.Fatalf("run: %v", r)
	}
}

func TestAWrongDigestIsAMismatch(t *testing.T) {
	w := workertest.Pipe(t, config)
	if r := w.Call(prepare(zeros)); r["type"] != "mismatch" || r["field"] != "digest" {
		t.Fatalf("prepare with a wrong digest: %v", r)
	}
}
