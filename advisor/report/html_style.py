"""The HTML report's stylesheet (inline: the CSP allows inline styles and nothing from outside)."""

from __future__ import annotations

CSS = """
:root{--bg:#f6f7f9;--card:#fff;--ink:#16181d;--muted:#5b6270;--line:#e3e6eb;--code:#0f172a;--code-ink:#e2e8f0;
--ok:#15803d;--ok-bg:#e8f5ec;--no:#b42318;--no-bg:#fdecea;--unk:#b45309;--unk-bg:#fdf3e3;
--c0:#2563eb;--c1:#ea580c;--c2:#16a34a;--c3:#9333ea;--band:rgba(37,99,235,.14)}
@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--card:#171a21;--ink:#e8eaee;--muted:#9aa3b2;
--line:#2a2f3a;--code:#0b0d12;--ok:#4ade80;--ok-bg:#11271a;--no:#f87171;--no-bg:#2c1414;--unk:#fbbf24;
--unk-bg:#2b2112;--c0:#60a5fa;--c1:#fb923c;--c2:#4ade80;--c3:#c084fc;--band:rgba(96,165,250,.18)}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);line-height:1.5;
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","PingFang SC","Microsoft YaHei",
"Noto Sans CJK SC",sans-serif}
main{max-width:1040px;margin:0 auto;padding:28px 20px 48px}
h1,h2,h3{line-height:1.2;margin:0}
h2{font-size:19px;margin:36px 0 12px}
h3{font-size:15px;margin:0 0 10px}
.top{display:flex;justify-content:space-between;gap:16px;flex-wrap:wrap;color:var(--muted);font-size:13px}
.top b{color:var(--ink);font-weight:600}
.hero{margin:16px 0 8px;padding:28px 30px;border-radius:14px;border:1px solid var(--line);background:var(--card);
border-left:10px solid var(--accent)}
.v-ENABLE{--accent:var(--ok);--tint:var(--ok-bg)} .v-SKIP{--accent:var(--no);--tint:var(--no-bg)}
.v-INCONCLUSIVE{--accent:var(--unk);--tint:var(--unk-bg)}
.pill{display:inline-block;padding:3px 10px;border-radius:999px;background:var(--tint);color:var(--accent);
font-weight:700;font-size:13px;letter-spacing:.08em}
.verdict{font-size:clamp(34px,6vw,56px);font-weight:800;letter-spacing:-.02em;margin:10px 0 6px;color:var(--accent)}
.blurb{font-size:17px;margin:0 0 14px;max-width:46em}
.speedup{display:flex;align-items:baseline;gap:14px;flex-wrap:wrap;margin:0}
.speedup .big{font-size:34px;font-weight:700;font-variant-numeric:tabular-nums}
.speedup .detail{color:var(--muted)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:18px 20px;min-width:0}
.card.wide{grid-column:1/-1}
pre{margin:0;padding:14px 16px;border-radius:8px;background:var(--code);color:var(--code-ink);overflow-x:auto;
font:13px/1.55 ui-monospace,SFMono-Regular,Menlo,Consolas,"Noto Sans Mono",monospace;white-space:pre-wrap;
word-break:break-all}
pre .c{color:#94a3b8}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
ul,ol{margin:8px 0 0;padding-left:20px} li{margin:4px 0}
.warn{background:var(--unk-bg);border-color:transparent} .warn li::marker{content:"⚠  ";color:var(--unk)}
.muted{color:var(--muted)}
table{border-collapse:collapse;width:100%;font-size:13.5px;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:6px 10px;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:anywhere}
th{color:var(--muted);font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
td.k{color:var(--muted);font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px;
width:45%}
.res{font-weight:700;font-size:12px;white-space:nowrap} .res.pass{color:var(--ok)} .res.fail{color:var(--no)}
.res.unknown{color:var(--unk)} .res.muted{color:var(--muted)}
.badge{font-size:12px;font-weight:600;padding:2px 8px;border-radius:999px;background:var(--bg);color:var(--muted);
margin-left:8px;vertical-align:2px}
.badge.done{color:var(--ok);background:var(--ok-bg)}
.badge.failed,.badge.aborted{color:var(--no);background:var(--no-bg)}
.badge.skipped{color:var(--unk);background:var(--unk-bg)}
.step-head{display:flex;justify-content:space-between;align-items:baseline;gap:8px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(400px,1fr));gap:16px;margin-top:14px}
.charts figure{margin:0}
svg.chart{width:100%;height:auto;display:block}
svg.chart text{fill:var(--muted);font-size:11px;font-family:inherit}
svg.chart .ct{fill:var(--ink);font-size:13px;font-weight:600}
svg.chart .lg{fill:var(--ink)} svg.chart .bv{fill:var(--ink);font-size:11px}
svg.chart .grid{stroke:var(--line);stroke-width:1} svg.chart .axis{stroke:var(--muted);stroke-width:1}
svg.chart .ref{stroke:var(--muted);stroke-dasharray:4 4} svg.chart .ref.warn{stroke:var(--no)}
svg.chart .line{fill:none;stroke-width:2;stroke-linejoin:round}
svg.chart .band{fill:var(--band)} svg.chart .bar{fill:var(--c0)} svg.chart .whisker{stroke:var(--ink);fill:none}
.line.s0{stroke:var(--c0)} .line.s1{stroke:var(--c1)} .line.s2{stroke:var(--c2)} .line.s3{stroke:var(--c3)}
.s0:not(.line){fill:var(--c0)} .s1:not(.line){fill:var(--c1)} .s2:not(.line){fill:var(--c2)}
.s3:not(.line){fill:var(--c3)} .dot{opacity:.75}
details summary{cursor:pointer;font-weight:600}
footer{margin-top:36px;color:var(--muted);font-size:12.5px}
@media print{body{background:#fff}.card,.hero{break-inside:avoid}main{max-width:none}}
"""
