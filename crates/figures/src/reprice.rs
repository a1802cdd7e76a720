//! docs/gas.md's attribution table: each operation's cost inside geth and
//! revm (`dyno gas --blocks`), beside the same operation in its library
//! and in an EVM's bytecode loop (`dyno run ... --impl all`), priced as
//! `dyno gas --blocks --from BLOCKS --with LEVELS` prices the two kept
//! runs (100 MGas/s, specs/gas/compute/schedules.toml).

use std::path::Path;

use dyno_format::reprice::{Pricing, Row};
use dyno_report::units::{duration, duration_ci, sig3};

use crate::systems::command;
use crate::{FiguresError, head, line, read};

/// The kept op-isolation run (geth and revm), relative to the root.
pub const BLOCKS_RUN: &str = "docs/research/data/reprice-blocks-2026-11-29.json.gz";
/// The kept run of the same operations' library and bytecode ids.
pub const LEVELS_RUN: &str = "docs/research/data/reprice-levels-2026-11-29.json.gz";
/// The anchor the table prices at: the repricing EIPs' 100 MGas/s.
const ANCHOR_MGAS: f64 = dyno_price::blocks::ANCHOR_MGAS;

/// The two kept runs, priced.
fn priced(root: &Path) -> Result<(Pricing, dyno_format::Run, dyno_format::Run), FiguresError> {
    let blocks = read::run(&root.join(BLOCKS_RUN))?;
    let levels = read::run(&root.join(LEVELS_RUN))?;
    let specs = root.join("specs");
    let schedules = dyno_price::blocks::schedule_names(&specs).map_err(|e| FiguresError::Data {
        path: specs.join(dyno_spec::reprice::SCHEDULES),
        why: e.to_string(),
    })?;
    let pricing = dyno_price::blocks::price_with(
        &schedules,
        &blocks,
        ANCHOR_MGAS,
        std::slice::from_ref(&levels),
    )
    .map_err(|e| FiguresError::Data {
        path: root.join(BLOCKS_RUN),
        why: e.to_string(),
    })?;
    Ok((pricing, blocks, levels))
}

/// The bytecode column an implementation's loop goes in: the state
/// suite's `geth` is go-ethereum's core/vm over its own state database,
/// the EVM the precompile and opcode suites call `geth-evm`.
fn evm_column(name: &str) -> &str {
    if name == "geth" { "geth-evm" } else { name }
}

/// The attribution table: one row per operation and parameter.
pub fn attribution_table(root: &Path) -> Result<String, FiguresError> {
    let (p, blocks, levels) = priced(root)?;
    let find = |id: &str, level: &str, client: Option<&str>, time: &str| -> Option<&Row> {
        p.rows.iter().find(|r| {
            r.id == id && r.level == level && client.is_none_or(|c| r.client == c) && r.time == time
        })
    };
    let mut ids: Vec<&str> = Vec::new();
    let mut evms: Vec<&str> = Vec::new();
    for r in &p.rows {
        if !ids.contains(&r.id.as_str()) {
            ids.push(&r.id);
        }
        if r.level == "bytecode" && !evms.contains(&evm_column(&r.client)) {
            evms.push(evm_column(&r.client));
        }
    }
    if ids.is_empty() {
        return Err(FiguresError::Data {
            path: root.join(BLOCKS_RUN),
            why: "no op-isolation series".into(),
        });
    }
    // revm and geth first, the other EVMs after.
    evms.sort_by_key(|e| {
        ["revm", "geth-evm"]
            .iter()
            .position(|x| x == e)
            .unwrap_or(2)
    });
    let mut header: Vec<String> = vec![
        "operation".into(),
        "library: revm's".into(),
        "library: geth's".into(),
    ];
    header.extend(evms.iter().map(|e| format!("bytecode, {e}")));
    header.extend(
        [
            "revm block",
            "geth block: execution [95%]",
            "geth: newPayload",
            "revm ÷ its library",
            "geth ÷ its library",
            "fit (geth execution)",
        ]
        .map(String::from),
    );
    header.push(format!("gas @ {} MGas/s", sig3(ANCHOR_MGAS)));
    header.extend(p.schedules.iter().map(|s| s.name.clone()));
    let mut out = head(&header);
    let dur = |r: Option<&Row>| r.map_or_else(|| "-".into(), |r| duration(r.ns.value));
    for id in &ids {
        let library = p.rows.iter().find(|r| r.id == *id && r.level == "library");
        let geths = p.rows.iter().find(|r| {
            r.id == *id
                && r.level == "library"
                && (r.client == "geth-precompile" || r.client == "geth")
        });
        let geth = find(id, "block", Some("geth"), "client_execution");
        let revm = find(id, "block", Some("revm"), "new_payload");
        let mut cells = vec![
            format!("`{}`", id.trim_start_matches("reprice/")),
            library.map_or("-".into(), |r| {
                format!("{} ({})", duration(r.ns.value), r.client)
            }),
            dur(geths),
        ];
        for evm in &evms {
            let b = p
                .rows
                .iter()
                .find(|r| r.id == *id && r.level == "bytecode" && evm_column(&r.client) == *evm);
            cells.push(b.map_or("-".into(), |b| {
                format!("{}{}", duration(b.ns.value), if b.net { "" } else { " ˢ" })
            }));
        }
        let ratio = |r: Option<&Row>| {
            r.and_then(|r| r.vs_library)
                .map_or("-".into(), |v| format!("{v:.2}"))
        };
        cells.push(dur(revm));
        cells.push(geth.map_or("-".into(), |g| duration_ci(&g.ns)));
        cells.push(dur(find(id, "block", Some("geth"), "new_payload")));
        cells.push(ratio(revm));
        cells.push(ratio(geth));
        cells.push(geth.map_or("-".into(), |g| {
            format!(
                "{}, R² {:.2}",
                if g.kept { "kept" } else { "**fails**" },
                g.r_squared.unwrap_or(f64::NAN)
            )
        }));
        cells.push(geth.map_or("-".into(), |g| sig3(g.gas.value)));
        let prices = geth
            .or_else(|| p.rows.iter().find(|r| r.id == *id))
            .map(|r| r.prices.clone())
            .unwrap_or_default();
        for (k, _) in p.schedules.iter().enumerate() {
            cells.push(
                prices
                    .get(k)
                    .copied()
                    .flatten()
                    .map_or("-".into(), |g| g.to_string()),
            );
        }
        out.push_str(&line(&cells));
    }
    let failing = p
        .rows
        .iter()
        .filter(|r| r.level == "block" && !r.kept)
        .count();
    let blocks_per = p
        .rows
        .iter()
        .find(|r| r.level == "block")
        .map_or(0, |r| r.n);
    out.push_str(&format!(
        "\nGenerated by `cargo run -p dyno-figures -- write` from `{BLOCKS_RUN}` (`{}`, release build, {}; \
         {blocks_per} measured blocks a series in each client) and `{LEVELS_RUN}` (`dyno run IDS --impl all`, \
         IDS every `library` and `bytecode` id of specs/operations.toml and the loop's no-op control, \
         {} ids: the whole line is the file's `run.command_line`; {}), priced as \
         `dyno gas --blocks --from BLOCKS --with LEVELS` prices them. Every time is per operation: a block \
         figure is the NNLS slope of block time on the block's operation count less its control series' \
         slope (the glue), in the same client; geth's execution is its own slow-block log's \
         `timing.execution_ms`, newPayload dyno's side of the call; library: the library called directly \
         (revm's: the suite's baseline, revm's own backend; geth's: its precompiles through the Go adapter); bytecode: the EVM's loop, a precompile's call less the \
         loop's no-op control (ˢ: glue in: an opcode's sequence with its DUPs and POP, a state access with its share of the state suite's loop at 1 000 000 accounts, its pages cached: revm over MDBX, geth's core/vm over its own state database). ÷ its library: a client's \
         block figure over the library that client calls, how much of the operation inside it is not the library. Gas is geth's execution figure × {}; the schedule \
         columns are today's price, EIP-7904's proposal (2026-06-10, 100 MGas/s) and EIP-8038's two versions (the state set) of one operation. \
         {failing} of {} block fits fail the EIPs' rule (R² > 0.5 and p < 0.05) and are shown, not dropped.\n",
        command(&blocks),
        blocks.run.started_at.get(..10).unwrap_or(""),
        levels
            .results
            .iter()
            .map(|r| r.id.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        levels.run.started_at.get(..10).unwrap_or(""),
        ANCHOR_MGAS / 1000.0,
        p.rows.iter().filter(|r| r.level == "block").count(),
    ));
    read::with_noise(
        &mut out,
        &[(&blocks, "the blocks' run"), (&levels, "the levels' run")],
    );
    Ok(out)
}

/// The joint fits: each operation over all its parameters, in geth (its
/// own execution time) and revm (dyno's newPayload in process).
pub fn joint_table(root: &Path) -> Result<String, FiguresError> {
    let (p, blocks, _) = priced(root)?;
    let wanted = [("geth", "client_execution"), ("revm", "new_payload")];
    let rows: Vec<_> = p
        .joint
        .iter()
        .filter(|j| wanted.contains(&(j.client.as_str(), j.time.as_str())))
        .collect();
    if rows.is_empty() {
        return Err(FiguresError::Data {
            path: root.join(BLOCKS_RUN),
            why: "no operation at two or more parameters".into(),
        });
    }
    let mut header: Vec<String> = [
        "operation",
        "client",
        "parameters",
        "blocks",
        "per op [95%]",
        "per unit [95%]",
        "R²",
        "rule",
    ]
    .map(String::from)
    .to_vec();
    header.push(format!(
        "gas @ {} MGas/s: base + per unit",
        sig3(ANCHOR_MGAS)
    ));
    header.extend(p.schedules.iter().map(|s| s.name.clone()));
    let mut out = head(&header);
    for j in rows {
        let mut cells = vec![
            format!("`{}`", j.op),
            format!(
                "{}{}",
                j.client,
                if j.time == "client_execution" {
                    " (execution)"
                } else {
                    ""
                }
            ),
            j.series
                .iter()
                .map(|(_, u)| u.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            j.n.to_string(),
            dyno_report::units::coefficient(&j.per_op_ns),
            dyno_report::units::coefficient(&j.per_unit_ns),
            format!("{:.2}", j.r_squared),
            if j.kept { "kept" } else { "**fails**" }.into(),
            format!(
                "{} + {}",
                sig3(j.gas_base.value),
                sig3(j.gas_per_unit.value)
            ),
        ];
        cells.extend(
            j.prices
                .iter()
                .map(|pr| pr.map_or("-".into(), |(b, u)| format!("{} + {}", sig3(b), sig3(u)))),
        );
        out.push_str(&line(&cells));
    }
    out.push_str(&format!(
        "\nGenerated by `cargo run -p dyno-figures -- write` from `{BLOCKS_RUN}` (`{}`), priced as \
         `dyno gas --blocks --from BLOCKS` prices it: for each operation listed at two or more parameters, \
         all its blocks in one client fitted on (1, count, count × parameter) by NNLS, each block's glue \
         (its control's time a loop turn) taken off first; the rule (R² > 0.5, p < 0.05) on the per-unit \
         coefficient. The parameter is the series' `units`: words hashed, rounds, pairs, points, the \
         modulus' bytes. A schedule's base + per unit is the line through its prices of the same series \
         (`-` where they do not lie on one line, as MODEXP's three do not; through two prices there always is one).\n",
        command(&blocks),
    ));
    read::with_noise(&mut out, &[(&blocks, "the blocks' run")]);
    Ok(out)
}
