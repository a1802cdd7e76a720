//! The gas section: calculated against nominal gas per precompile, as a
//! table and a scatter.

use std::fmt::Write as _;

use super::*;

impl Page {
    pub(super) fn gas(&mut self, run: &Run, g: &GasInput, multi: bool) {
        if multi {
            self.run_heading(run);
        }
        let factor = if g.factor.is_finite() && g.factor > 1.0 {
            g.factor
        } else {
            2.0
        };
        let _ = write!(
            self.body,
            "<p class=\"lede\">Calculated gas = ns × 3000 / ns(ECRECOVER): what each input would cost if \
             gas paid for time at ECRECOVER's rate. Nominal gas is the {} schedule's price. \
             A point above the band is underpriced (slower than its gas pays for), below it overpriced; \
             the band is ×{} either side of y = x. Whiskers: 95% interval of calculated gas.</p>",
            esc(&g.fork),
            esc(&units::sig3(factor))
        );
        let mut points = Vec::new();
        let mut off_axis = Vec::new();
        for r in &g.rows {
            let name = row_name(r);
            let plotted = r.nominal_gas > 0
                && r.calculated_gas.value.is_finite()
                && r.calculated_gas.value > 0.0;
            if !plotted {
                off_axis.push(format!("{name} {}", r.input));
                continue;
            }
            let nominal = r.nominal_gas as f64;
            let ratio = r.calculated_gas.value / nominal;
            let pricing = match r.flag {
                Some(Flag::Under) => Pricing::Under,
                Some(Flag::Over) => Pricing::Over,
                None if ratio > factor => Pricing::Under,
                None if ratio < 1.0 / factor => Pricing::Over,
                None => Pricing::Within,
            };
            points.push(GasPoint {
                label: format!("{} {}", r.name, shorten(&r.input, 16)),
                tip: format!(
                    "{name} {}: nominal {} gas, calculated {} [{}–{}] (×{}), {} direct, {} MGas/s",
                    r.input,
                    r.nominal_gas,
                    units::sig3(r.calculated_gas.value),
                    units::sig3(r.calculated_gas.lower),
                    units::sig3(r.calculated_gas.upper),
                    units::sig3(ratio),
                    units::duration(r.direct_ns.value),
                    units::sig3(r.mgas_per_s.value)
                ),
                nominal,
                calc: r.calculated_gas.value,
                lo: r.calculated_gas.lower,
                hi: r.calculated_gas.upper,
                pricing,
                opcode: r.kind == "opcode",
            });
        }
        let uid = format!("clip-{}", self.chart_id());
        let title = format!(
            "Calculated against nominal gas, log–log, {} (run {})",
            g.fork, run.run.id
        );
        let _ = write!(
            self.body,
            "<figure class=\"fig\">{}</figure>",
            charts::gas_scatter(&title, &uid, &points, factor)
        );
        if !off_axis.is_empty() {
            let _ = write!(
                self.body,
                "<p class=\"muted small\">Not on the log axes (zero gas or no time): {}</p>",
                esc(&off_axis.join(", "))
            );
        }
        self.body.push_str(
            "<div class=\"scroll\"><table class=\"num\"><thead><tr><th>precompile / opcode</th><th>input</th>\
             <th>nominal gas</th><th>ns direct</th><th>ns bytecode [95% CI]</th><th>calculated gas [95% CI]</th>\
             <th>bytecode gas [95% CI]</th><th>calc / nominal</th><th>MGas/s</th><th class=\"txt\">pricing</th></tr></thead><tbody>",
        );
        for r in &g.rows {
            let ratio = if r.nominal_gas > 0 {
                units::sig3(r.calculated_gas.value / r.nominal_gas as f64)
            } else {
                "-".into()
            };
            let flag = match r.flag {
                Some(f) if r.nominal_gas == 0 => {
                    format!("<span class=\"badge bad\">{} (free)</span>", f.as_str())
                }
                Some(Flag::Under) => "<span class=\"badge bad\">underpriced</span>".into(),
                Some(Flag::Over) => "<span class=\"badge info\">overpriced</span>".into(),
                None => String::new(),
            };
            let _ = write!(
                self.body,
                "<tr><td class=\"txt\">{}</td><td class=\"txt\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"txt\">{flag}</td></tr>",
                esc(&row_name(r)),
                esc(&r.input),
                r.nominal_gas,
                esc(&time_ci(&r.direct_ns)),
                esc(&r
                    .bytecode_ns
                    .as_ref()
                    .map_or("-".into(), crate::gas::net_time)),
                esc(&gas_ci(&r.calculated_gas)),
                esc(&r.bytecode_gas.as_ref().map_or("-".into(), gas_ci)),
                esc(&ratio),
                esc(&units::rate(r.mgas_per_s.value)),
            );
        }
        self.body.push_str("</tbody></table></div>");
        if !g.left_out.is_empty() {
            let _ = write!(
                self.body,
                "<p class=\"muted small\">Not priced: {}</p>",
                esc(&g.left_out.join("; "))
            );
        }
    }
}

pub(super) fn row_name(r: &GasRow) -> String {
    if r.address.is_empty() {
        r.name.clone()
    } else {
        format!("{} ({})", r.name, r.address)
    }
}

pub(super) fn time_ci(e: &dyno_format::gas::Estimate) -> String {
    let half = (e.upper - e.lower) / 2.0;
    if e.value > 0.0 && half > 0.0 && half.is_finite() {
        format!(
            "{} ±{:.0}%",
            units::duration(e.value),
            100.0 * half / e.value
        )
    } else {
        units::duration(e.value)
    }
}

pub(super) fn gas_ci(e: &dyno_format::gas::Estimate) -> String {
    let g = |v: f64| {
        if v.is_finite() {
            units::sig3(v)
        } else {
            "-".into()
        }
    };
    if e.lower == e.upper {
        g(e.value)
    } else {
        format!("{} [{}–{}]", g(e.value), g(e.lower), g(e.upper))
    }
}

pub(super) fn flag_count(n: u64) -> String {
    if n > 0 {
        format!("<b class=\"bad-text\">{n}</b>")
    } else {
        "0".into()
    }
}
