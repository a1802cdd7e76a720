//! The load lab's section: its tables and the plots `dyno load` wrote
//! beside its result, cleaned and embedded.

use std::fmt::Write as _;

use super::*;

/// The SVG plots of each load result in `run`, read from `dir` (the
/// folder of the run's JSON) as `(caption, svg text)`, in the order the
/// result's `files` numbers them. A file that is missing or unreadable
/// gives a caption saying so and empty text; never an error. The XML
/// prolog and namespace declarations are stripped so the text inlines.
pub fn load_svgs(run: &Run, dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for l in &run.load {
        let mut plots: Vec<(u64, &String)> = l
            .files
            .iter()
            .filter_map(|(k, v)| {
                let n = k.strip_prefix("plot")?.parse::<u64>().ok()?;
                v.to_ascii_lowercase().ends_with(".svg").then_some((n, v))
            })
            .collect();
        plots.sort();
        for (_, name) in plots {
            let what = plot_kind(name);
            let caption = format!("{} · {what} ({name})", load_label(l));
            if name.contains('/') || name.contains('\\') || name.starts_with('.') {
                out.push((
                    format!("{caption}: not read (not a plain file name)"),
                    String::new(),
                ));
                continue;
            }
            match std::fs::read_to_string(dir.join(name)) {
                Ok(text) => match clean_svg(&text) {
                    Ok(svg) => out.push((caption, svg)),
                    Err(why) => {
                        out.push((format!("{caption}: not inlined ({why})"), String::new()))
                    }
                },
                Err(e) => out.push((format!("{caption}: could not be read ({e})"), String::new())),
            }
        }
    }
    out
}

fn plot_kind(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n.ends_with("-latency.svg") {
        "latency over the run"
    } else if n.ends_with("-throughput.svg") {
        "throughput"
    } else if n.ends_with("-histogram.svg") {
        "latency histogram"
    } else if n.ends_with("-node.svg") {
        "the node's own metrics beside throughput"
    } else if n.ends_with("-blocks.svg") {
        "time to inclusion per block, pending transactions, gas per block"
    } else {
        "plot"
    }
}

pub(super) fn load_label(l: &LoadResult) -> String {
    format!("{} ({}-signed) · {}", l.node.name, l.signer, l.id)
}

/// SVG text made fit to inline: from the root `<svg` to its end, without
/// namespace declarations. Refuses anything that could fetch or run.
pub(super) fn clean_svg(text: &str) -> Result<String, &'static str> {
    let start = text.find("<svg").ok_or("no <svg> element")?;
    let end = text
        .rfind("</svg>")
        .map(|i| i + "</svg>".len())
        .ok_or("no </svg> end tag")?;
    if end <= start {
        return Err("no <svg> element");
    }
    let mut s = text[start..end].to_string();
    // Namespace declarations are implied for inline SVG in HTML.
    let mut from = 0;
    while let Some(found) = s[from..].find(" xmlns") {
        let i = from + found;
        // ` xmlns="…"` or ` xmlns:name='…'`, nothing else.
        let rest = &s[i + " xmlns".len()..];
        let name_len = rest.strip_prefix(':').map_or(0, |r| {
            1 + r.chars().take_while(char::is_ascii_alphanumeric).count()
        });
        let after = &rest[name_len..];
        let quote = match after.as_bytes() {
            [b'=', q @ (b'"' | b'\''), ..] => *q as char,
            _ => {
                from = i + 1;
                continue;
            }
        };
        let Some(close) = after[2..].find(quote) else {
            break;
        };
        let end = i + " xmlns".len() + name_len + 2 + close + 1;
        s.replace_range(i..end, "");
        from = i;
    }
    let lower = s.to_ascii_lowercase();
    for bad in [
        "<script",
        "<foreignobject",
        "<image",
        "<iframe",
        "http:",
        "https:",
        "javascript:",
        "@import",
        " on",
    ] {
        if bad == " on" {
            // Event handler attributes: ` onload=`, ` onclick=`...
            let mut from = 0;
            while let Some(i) = lower[from..].find(" on") {
                let at = from + i + 3;
                let word: String = lower[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                if !word.is_empty() && lower[at + word.len()..].trim_start().starts_with('=') {
                    return Err("it has event handlers");
                }
                from = at;
            }
        } else if lower.contains(bad) {
            return Err("it refers to outside resources or scripts");
        }
    }
    Ok(s)
}

/// Give an inlined plot the chart class, an accessible label and a title,
/// and a viewBox so it scales.
pub(super) fn decorate_svg(svg: &str, caption: &str) -> Option<String> {
    let svg = clean_svg(svg).ok()?;
    // The end of the root start tag, outside quotes.
    let mut quote: Option<char> = None;
    let mut end = None;
    for (i, c) in svg.char_indices().skip(4) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => {
                end = Some(i);
                break;
            }
            _ => {}
        }
    }
    let end = end?;
    let self_closing = svg[..end].ends_with('/');
    let tag_end = if self_closing { end - 1 } else { end };
    let mut tag = svg[4..tag_end].to_string();
    let lower = tag.to_ascii_lowercase();
    if !lower.contains("viewbox") {
        let attr = |name: &str| -> Option<f64> {
            let key = format!(" {name}=\"");
            let i = tag.find(&key)? + key.len();
            let v: String = tag[i..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            v.parse().ok()
        };
        if let (Some(w), Some(h)) = (attr("width"), attr("height")) {
            tag.push_str(&format!(" viewBox=\"0 0 {} {}\"", svg::num(w), svg::num(h)));
        }
    }
    let class = if lower.contains(" class=\"") {
        tag = tag.replacen(" class=\"", " class=\"chart plot ", 1);
        String::new()
    } else {
        " class=\"chart plot\"".to_string()
    };
    let c = esc(caption);
    let body = if self_closing {
        String::from("</svg>")
    } else {
        svg[end + 1..].to_string()
    };
    Some(format!(
        "<svg{tag}{class} role=\"img\" aria-label=\"{c}\"><title>{c}</title>{body}"
    ))
}

impl Page {
    pub(super) fn load(&mut self, ri: &RunInput<'_>, multi: bool) {
        if multi {
            self.run_heading(ri.run);
        }
        for l in &ri.run.load {
            self.load_result(l);
        }
        if !ri.load_svgs.is_empty() {
            self.body.push_str("<div class=\"plots\">");
            for (caption, text) in &ri.load_svgs {
                match decorate_svg(text, caption) {
                    Some(svg) => {
                        let _ = write!(
                            self.body,
                            "<figure class=\"plot\">{svg}<figcaption>{}</figcaption></figure>",
                            esc(caption)
                        );
                    }
                    None => {
                        let _ = write!(
                            self.body,
                            "<p class=\"muted small\">Plot not shown: {}</p>",
                            esc(caption)
                        );
                    }
                }
            }
            self.body.push_str("</div>");
        }
    }

    pub(super) fn load_result(&mut self, l: &LoadResult) {
        let c = &l.counts;
        let _ = write!(
            self.body,
            "<h3>{} <span class=\"muted\">{}</span></h3>",
            esc(&load_label(l)),
            esc(&l.node.version)
        );
        if !l.complete {
            let _ = write!(
                self.body,
                "<p><span class=\"badge warn\">INCOMPLETE</span> {}</p>",
                esc(&crate::one_line(
                    l.incomplete_reason.as_deref().unwrap_or("cut short")
                ))
            );
        }
        let t = &l.throughput;
        let g = &l.generator;
        let _ = write!(
            self.body,
            "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>schedule</th><th>planned</th><th>submitted</th><th>accepted</th>\
             <th>rejected</th><th>included</th><th>safe</th><th>finalized</th><th>pending</th><th>dropped</th><th>reverted</th>\
             <th>sustained tx/s</th><th>average tx/s</th><th>peak 1 s</th><th>sent tx/s</th></tr></thead><tbody><tr>\
             <td class=\"txt\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td></tr></tbody></table></div>",
            esc(&l.schedule),
            l.planned,
            c.submitted,
            c.accepted,
            flag_count(c.rejected),
            c.included,
            c.safe,
            c.finalized,
            flag_count(c.pending),
            flag_count(c.dropped),
            flag_count(c.reverted),
            esc(&units::sig3(t.sustained)),
            esc(&units::sig3(t.average)),
            esc(&units::sig3(t.peak_1s)),
            esc(&units::sig3(t.sent_average)),
        );
        let stages = ["accepted", "included", "safe", "finalized"];
        let mut names: Vec<&str> = stages
            .iter()
            .copied()
            .filter(|s| l.latency.contains_key(*s))
            .collect();
        names.extend(
            l.latency
                .keys()
                .map(String::as_str)
                .filter(|k| !stages.contains(k)),
        );
        if !names.is_empty() {
            self.body.push_str(
                "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>latency from intended send</th><th>n</th>\
                 <th>P50</th><th>P90</th><th>P95</th><th>P99</th><th>P99.9</th><th>max</th><th>mean</th><th>P50 95% CI</th></tr></thead><tbody>",
            );
            for name in names {
                if let Some(s) = l.latency.get(name) {
                    self.latency_row(name, s);
                }
            }
            self.latency_row("generator lag", &g.lag);
            self.body.push_str("</tbody></table></div>");
        }
        let mut facts: Vec<String> = Vec::new();
        if let Some(cs) = &l.chain_scan {
            facts.push(format!(
                "chain scan of blocks {}–{}: {} found, {}",
                cs.from_block,
                cs.to_block,
                cs.found,
                if cs.matches {
                    "matches the count included".to_string()
                } else {
                    "does NOT match the count included".to_string()
                }
            ));
        }
        if let Some(b) = &l.block_summary {
            facts.push(format!(
                "{} blocks · {} mean tx per block (max {}) · {}% mean gas fill · {} s median interval",
                b.blocks,
                units::sig3(b.mean_txs),
                b.max_txs,
                units::sig3(b.mean_gas_fill * 100.0),
                units::sig3(b.median_interval_s)
            ));
        }
        if let Some((line, problems)) = crate::load::onchain_line(l) {
            facts.push(format!("on chain: {line}"));
            facts.extend(problems.into_iter().map(|p| format!("WRONG: {p}")));
        }
        if let Some(line) = crate::load::blob_line(l) {
            facts.push(format!("blob gas: {line}"));
        }
        if let Some(line) = crate::load::node_metrics_line(l) {
            facts.push(format!("node metrics: {line}"));
        }
        if let Some(r) = &l.resources {
            facts.push(format!(
                "node CPU {}% mean, {}% max (of one core) · RSS {} peak",
                units::sig3(r.cpu_mean_pct),
                units::sig3(r.cpu_max_pct),
                units::bytes(r.rss_max_bytes as f64)
            ));
        }
        facts.push(format!(
            "generator: {} connections · {}% of sends later than {} ms{}{}",
            g.connections,
            units::sig3(g.late_fraction * 100.0),
            units::sig3(g.lag_threshold_ms),
            g.self_test_rate
                .map(|r| format!(" · null-sink ceiling {} req/s", units::rate(r)))
                .unwrap_or_default(),
            if g.saturated {
                " · SATURATED: the generator, not the node, set the pace"
            } else {
                ""
            }
        ));
        if let Some(s) = &l.signing {
            facts.push(format!(
                "pre-signing: {} tx/s serial, {} tx/s on {} threads",
                units::rate(s.serial_tx_per_s),
                units::rate(s.parallel_tx_per_s),
                s.threads
            ));
        }
        facts.push(format!("duration {} s", units::sig3(l.duration_s)));
        facts.extend(
            l.notes
                .iter()
                .map(|n| format!("note: {}", crate::one_line(n))),
        );
        self.body.push_str("<ul class=\"facts-list\">");
        for f in facts {
            let _ = write!(self.body, "<li>{}</li>", esc(&f));
        }
        self.body.push_str("</ul>");
    }

    pub(super) fn latency_row(&mut self, name: &str, s: &LatencyStats) {
        let m = |v: f64| esc(&units::duration(v * 1e6));
        let _ = write!(
            self.body,
            "<tr><td class=\"txt\">{}</td><td>{}</td><td><b>{}</b></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(name),
            s.n,
            m(s.p50),
            m(s.p90),
            m(s.p95),
            m(s.p99),
            m(s.p999),
            m(s.max),
            m(s.mean),
            s.p50_ci
                .as_ref()
                .map(|i| format!("{} – {}", m(i.lower), m(i.upper)))
                .unwrap_or_else(|| "-".into())
        );
    }
}
