//! The gas scatter: calculated gas against nominal, each point's box its interval, the factor's band drawn.

use super::*;

#[derive(Debug, Clone, Copy)]
pub(crate) struct BoxPx {
    pub(crate) x0: f64,
    pub(crate) y0: f64,
    pub(crate) x1: f64,
    pub(crate) y1: f64,
}

impl BoxPx {
    pub(crate) fn hits(&self, o: &BoxPx) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// Calculated against nominal gas on log–log axes sharing one domain, with
/// the y = x line and the band within `factor` of it. Points that cannot
/// sit on a log axis (zero gas) must be left out by the caller.
pub(crate) fn gas_scatter(title: &str, uid: &str, points: &[GasPoint], factor: f64) -> String {
    let factor = if factor.is_finite() && factor > 1.0 {
        factor
    } else {
        2.0
    };
    let (l, r, t, b) = (84.0, 24.0, 40.0, 58.0);
    let h = 640.0;
    let mut lo_v = f64::INFINITY;
    let mut hi_v: f64 = 0.0;
    for p in points {
        for v in [p.nominal, p.calc, p.lo, p.hi] {
            if drawable(v) {
                lo_v = lo_v.min(v);
                hi_v = hi_v.max(v);
            }
        }
    }
    if !(hi_v > 0.0 && lo_v.is_finite()) {
        lo_v = 1.0;
        hi_v = 10.0;
    }
    let xs = Scale::log(lo_v, hi_v, l, W - r);
    let ys = Scale::log(lo_v, hi_v, h - b, t);
    let mut s = Svg::new(W, h, title);
    s.raw(&format!(
        "<defs><clipPath id=\"{uid}\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/></clipPath></defs>",
        num(l),
        num(t),
        num(W - r - l),
        num(h - b - t)
    ));
    // The grid and ticks.
    for v in xs.ticks() {
        let x = xs.px(v);
        s.line(x, t, x, h - b, "grid");
        s.text(x, h - b + 16.0, "middle", "tick", &tick_count(v));
    }
    for v in ys.ticks() {
        let y = ys.px(v);
        s.line(l, y, W - r, y, "grid");
        s.text(l - 6.0, y + 4.0, "end", "tick", &tick_count(v));
    }
    s.line(l, t, l, h - b, "axis");
    s.line(l, h - b, W - r, h - b, "axis");
    s.text(
        (l + W - r) / 2.0,
        h - 14.0,
        "middle",
        "axis-title",
        "nominal gas (fork schedule), log scale",
    );
    s.vtext(
        18.0,
        (t + h - b) / 2.0,
        "axis-title",
        "calculated gas = ns × 3000 / ns(ECRECOVER), log scale",
    );

    // The band and the y = x line, clipped to the plot area.
    let (a, z) = (xs.lo, xs.hi);
    s.raw(&format!("<g clip-path=\"url(#{uid})\">"));
    s.path(
        &[
            (xs.px(a), ys.px(a * factor)),
            (xs.px(z), ys.px(z * factor)),
            (xs.px(z), ys.px(z / factor)),
            (xs.px(a), ys.px(a / factor)),
        ],
        true,
        "band",
    );
    s.line(xs.px(a), ys.px(a), xs.px(z), ys.px(z), "diag");
    s.raw("</g>");
    s.text(
        xs.px(z) - 6.0,
        ys.px(z) + 16.0,
        "end",
        "muted",
        "y = x (priced as measured)",
    );

    // Legend along the top.
    let f = crate::units::sig3(factor);
    let legend: [(&str, String, bool); 4] = [
        ("pt-ok", format!("within ×{f}"), false),
        (
            "pt-under",
            format!("underpriced (calculated > {f}× nominal)"),
            false,
        ),
        (
            "pt-over",
            format!("overpriced (calculated < nominal / {f})"),
            false,
        ),
        ("pt-ok", "opcode sequence".to_string(), true),
    ];
    let mut x = l;
    for (class, text, square) in &legend {
        if *square {
            s.rect(x - 4.0, 14.0, 8.0, 8.0, class, None);
        } else {
            s.circle(x, 18.0, 4.5, class, None);
        }
        s.text(x + 9.0, 22.0, "start", "legend", text);
        x += text_width(text, 12.0) + 34.0;
    }
    s.rect(x - 6.0, 12.0, 16.0, 12.0, "band", None);
    s.text(x + 15.0, 22.0, "start", "legend", &format!("×{f} band"));

    // Whiskers, then markers, then labels where they fit.
    let placed: Vec<(f64, f64, &GasPoint)> = points
        .iter()
        .filter(|p| drawable(p.nominal) && drawable(p.calc))
        .map(|p| (xs.px(p.nominal), ys.px(p.calc), p))
        .collect();
    for (x, _, p) in &placed {
        if drawable(p.lo) && drawable(p.hi) && p.hi > p.lo {
            s.vbar_error(*x, ys.px(p.lo), ys.px(p.hi), 3.0);
        }
    }
    let mut taken: Vec<BoxPx> = Vec::new();
    for (x, y, p) in &placed {
        let class = match p.pricing {
            Pricing::Within => "pt-ok",
            Pricing::Under => "pt-under",
            Pricing::Over => "pt-over",
        };
        if p.opcode {
            s.rect(x - 4.0, y - 4.0, 8.0, 8.0, class, Some(&p.tip));
        } else {
            s.circle(*x, *y, 4.5, class, Some(&p.tip));
        }
        taken.push(BoxPx {
            x0: x - 5.0,
            y0: y - 5.0,
            x1: x + 5.0,
            y1: y + 5.0,
        });
    }
    // Label the mispriced points first, then the rest.
    let mut order: Vec<&(f64, f64, &GasPoint)> = placed.iter().collect();
    order.sort_by_key(|(_, _, p)| match p.pricing {
        Pricing::Under => 0,
        Pricing::Over => 1,
        Pricing::Within => 2,
    });
    let area = BoxPx {
        x0: l + 2.0,
        y0: t + 2.0,
        x1: W - r - 2.0,
        y1: h - b - 2.0,
    };
    for (x, y, p) in order {
        let w = text_width(&p.label, 10.5);
        let candidates = [
            (x + 7.0, y - 5.5, "start"),
            (x - 7.0, y - 5.5, "end"),
            (x + 5.0, y - 17.0, "start"),
            (x + 5.0, y + 6.0, "start"),
            (x - 5.0, y - 17.0, "end"),
            (x - 5.0, y + 6.0, "end"),
        ];
        for (cx, cy, anchor) in candidates {
            let bx = if anchor == "start" {
                BoxPx {
                    x0: cx,
                    y0: cy,
                    x1: cx + w,
                    y1: cy + 11.0,
                }
            } else {
                BoxPx {
                    x0: cx - w,
                    y0: cy,
                    x1: cx,
                    y1: cy + 11.0,
                }
            };
            let inside =
                bx.x0 >= area.x0 && bx.x1 <= area.x1 && bx.y0 >= area.y0 && bx.y1 <= area.y1;
            if inside && !taken.iter().any(|o| o.hits(&bx)) {
                s.text(cx, cy + 9.0, anchor, "pl", &p.label);
                taken.push(bx);
                break;
            }
        }
    }
    s.finish()
}
