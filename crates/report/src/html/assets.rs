//! The page's inline style sheet (light and dark palettes, tables, chart
//! classes) and its one script, which counts the charts that rendered.

/// Counts the charts that rendered (a non-empty bounding box) and writes
/// the numbers to `body.dataset`: the browser test reads them.
pub(super) const SCRIPT: &str = "<script>(function(){function count(){var c=document.querySelectorAll('svg.chart'),n=0;\
for(var i=0;i<c.length;i++){try{var b=c[i].getBBox();if(b.width>0&&b.height>0)n++;}catch(e){}}\
var d=document.body.dataset;d.chartsRendered=String(n);d.chartsTotal=String(c.length);\
d.pageHeight=String(Math.ceil(document.documentElement.scrollHeight));}\
count();window.addEventListener('load',count);})();</script>";

/// The style sheet: system fonts only, CSS variables for a light and a dark
/// palette, and the classes the charts draw with.
pub(super) const CSS: &str = r#"
:root{--bg:#ffffff;--fg:#1f2328;--muted:#636c76;--faint:#f6f8fa;--line:#d0d7de;--grid:#eaeef2;--axis:#8c959f;
--accent:#0969da;--bad:#cf222e;--bad-bg:#ffebe9;--good:#1a7f37;--good-bg:#dafbe1;--warn:#9a6700;--warn-bg:#fff8c5;--info-bg:#ddf4ff;
--c0:#4269d0;--c1:#efb118;--c2:#ff725c;--c3:#6cc5b0;--c4:#3ca951;--c5:#ff8ab7;--c6:#a463f2;--c7:#97bbf5;--band:rgba(9,105,218,.09)}
@media (prefers-color-scheme: dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#8d96a0;--faint:#161b22;--line:#30363d;--grid:#21262d;--axis:#6e7681;
--accent:#4493f8;--bad:#ff7b72;--bad-bg:#3c1618;--good:#3fb950;--good-bg:#12261e;--warn:#d29922;--warn-bg:#2e2a1b;--info-bg:#121d2f;--band:rgba(68,147,248,.13)}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg)}
body{margin:0;font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue","DejaVu Sans",Arial,sans-serif;background:var(--bg);color:var(--fg)}
header.top{padding:28px 32px 12px;border-bottom:1px solid var(--line);max-width:1360px;margin:0 auto}
h1{font-size:26px;margin:0 0 4px;font-weight:650;letter-spacing:-.01em}
h2{font-size:20px;margin:40px 0 12px;padding-bottom:6px;border-bottom:1px solid var(--line);font-weight:620}
h3{font-size:15px;margin:22px 0 8px;font-weight:620}
nav{display:flex;gap:18px;flex-wrap:wrap;margin-top:10px}
nav a{color:var(--accent);text-decoration:none;font-weight:500}
nav a:hover{text-decoration:underline}
main{max-width:1360px;margin:0 auto;padding:0 32px 40px}
footer{max-width:1360px;margin:0 auto;padding:16px 32px 40px;border-top:1px solid var(--line)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:.92em}
.muted{color:var(--muted)}.small{font-size:12px}
.lede{color:var(--muted);max-width:900px}
.card{border:1px solid var(--line);border-radius:10px;padding:14px 18px 6px;margin:14px 0;background:var(--bg)}
.card header{display:flex;align-items:center;gap:12px;flex-wrap:wrap}
.card h3{margin:0}
.tiles{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.tile{min-width:112px;padding:8px 14px;border-radius:8px;background:var(--faint);border:1px solid var(--line)}
.tile .n{font-size:22px;font-weight:650;font-variant-numeric:tabular-nums}
.tile .what{font-size:12px;color:var(--muted)}
.tile.bad{background:var(--bad-bg);border-color:var(--bad)}.tile.bad .n,.tile.bad .what{color:var(--bad)}
.tile.good .n{color:var(--good)}.tile.warn{background:var(--warn-bg)}.tile.quiet .n{color:var(--muted)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:3px 18px;margin:8px 0 12px}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
.badge{display:inline-block;padding:0 8px;border-radius:999px;font-size:12px;font-weight:600;line-height:20px;border:1px solid transparent;white-space:nowrap}
.badge.good{background:var(--good-bg);color:var(--good);border-color:var(--good)}
.badge.bad{background:var(--bad);color:#fff}
.badge.warn{background:var(--warn-bg);color:var(--warn);border-color:var(--warn)}
.badge.info{background:var(--info-bg);color:var(--accent);border-color:var(--accent)}
.bad-text{color:var(--bad)}.warn-text{color:var(--warn)}
.alert{border-radius:10px;padding:12px 18px;margin:14px 0}
.wrong-box{background:var(--bad-bg);border:2px solid var(--bad)}
.wrong-box h3{color:var(--bad);margin:2px 0 4px;font-size:17px}
.wrong-box ul{margin:6px 0;padding-left:18px}
details{margin:10px 0 18px}
summary{cursor:pointer;font-weight:600;margin-bottom:6px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;font-size:13px;margin:6px 0 14px;min-width:60%}
th,td{padding:4px 8px;border-bottom:1px solid var(--grid);vertical-align:top}
thead th{position:sticky;top:0;background:var(--bg);border-bottom:2px solid var(--line);font-weight:600;white-space:nowrap;text-align:right}
thead th:first-child,thead th:nth-child(2){text-align:left}
table.num td{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
table.num td.txt,table.num td.impl,table.num td.note{text-align:left}
thead th.txt{text-align:left}
td.note{white-space:normal;color:var(--warn);font-size:12px;min-width:120px}
th.id{text-align:left;font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:12px;max-width:330px;min-width:160px}
tbody{border-top:1px solid var(--line)}
tbody tr:hover td{background:var(--faint)}
td.wrong-cell{text-align:left!important;background:var(--bad-bg);color:var(--bad);font-weight:600;white-space:normal!important}
.fig{margin:14px 0 22px;min-width:0}
.grid{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));grid-auto-flow:row dense;gap:0 32px;align-items:start}
.scale-note{font-size:11px;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 5px}
.grid .fig.full{grid-column:1/-1}
@media (max-width:1100px){.grid{grid-template-columns:1fr}}
.fig svg.chart{width:100%}
.fig figcaption{display:flex;align-items:baseline;gap:16px;flex-wrap:wrap}
.fig figcaption h3{margin:0 0 4px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:14px}
.legend{display:flex;gap:14px;flex-wrap:wrap;font-size:12px;color:var(--muted)}
.legend span{display:inline-flex;align-items:center;gap:5px}
.sw{display:inline-block;width:11px;height:11px;border-radius:2px}
svg.chart{display:block;max-width:100%;height:auto;overflow:visible}
svg.chart text{font-family:inherit;font-size:12px;fill:var(--fg)}
svg.chart text.tick{fill:var(--muted);font-size:11px}
svg.chart text.axis-title{fill:var(--muted);font-size:12px}
svg.chart text.group{font-weight:600;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace;font-size:11.5px}
svg.chart text.label{fill:var(--muted)}
svg.chart text.value{font-size:11px;font-variant-numeric:tabular-nums}
svg.chart text.muted{fill:var(--muted);font-size:11px}
svg.chart text.legend{font-size:12px}
svg.chart text.pl{font-size:10.5px;fill:var(--muted)}
svg.chart text.wrong{fill:var(--bad);font-weight:700}
svg.chart .wrong-bg{fill:var(--bad-bg);stroke:var(--bad)}
svg.chart .grid{stroke:var(--grid);stroke-width:1}
svg.chart .axis{stroke:var(--axis);stroke-width:1}
svg.chart .err{stroke:var(--fg);stroke-width:1.3;opacity:.8}
svg.chart .zebra{fill:var(--faint)}
svg.chart .band{fill:var(--band);stroke:none}
svg.chart .diag{stroke:var(--accent);stroke-width:1.2;stroke-dasharray:5 4}
svg.chart .pt-ok{fill:var(--muted);stroke:var(--bg);stroke-width:1}
svg.chart .pt-under{fill:var(--bad);stroke:var(--bg);stroke-width:1}
svg.chart .pt-over{fill:var(--accent);stroke:var(--bg);stroke-width:1}
svg.chart .trend-band{fill:var(--band);stroke:none}
svg.chart .trend-line{fill:none;stroke:var(--accent);stroke-width:2}
svg.chart .trend-pt{fill:var(--accent);stroke:var(--bg);stroke-width:1.5}
.f0,.b0{fill:var(--c0);background:var(--c0)}.f1,.b1{fill:var(--c1);background:var(--c1)}.f2,.b2{fill:var(--c2);background:var(--c2)}.f3,.b3{fill:var(--c3);background:var(--c3)}
.f4,.b4{fill:var(--c4);background:var(--c4)}.f5,.b5{fill:var(--c5);background:var(--c5)}.f6,.b6{fill:var(--c6);background:var(--c6)}.f7,.b7{fill:var(--c7);background:var(--c7)}
svg.chart .size-line{fill:none;stroke-width:2}svg.chart .size-line.dashed{stroke-dasharray:6 4}
.l0{stroke:var(--c0)}.l1{stroke:var(--c1)}.l2{stroke:var(--c2)}.l3{stroke:var(--c3)}.l4{stroke:var(--c4)}.l5{stroke:var(--c5)}.l6{stroke:var(--c6)}.l7{stroke:var(--c7)}
.plots{display:grid;grid-template-columns:1fr;gap:18px}
figure.plot{margin:0;border:1px solid var(--line);border-radius:8px;background:#fff;padding:8px}
figure.plot svg{width:100%;height:auto;max-width:1100px;display:block;margin:0 auto}
figure.plot figcaption{color:#57606a;font-size:12px;padding:4px 4px 0}
ul.facts-list{margin:4px 0 12px;padding-left:18px;color:var(--muted)}
h3.run{margin-top:26px}
@media print{nav{display:none}thead th{position:static}}
"#;
