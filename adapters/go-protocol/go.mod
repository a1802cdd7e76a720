module dyno/adapters/go-protocol

go 1.25.0
