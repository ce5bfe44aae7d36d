/// The page's style sheet (`/web/style.css`): volatile words faint (grey italic), final words solid.
/// Plain text, served as it is (`WebAsset`): edit it here; there is no build step.
let webStyleCSS = #"""
[hidden] { display: none !important; }
:root { color-scheme: light; font-family: system-ui, sans-serif; line-height: 1.5; color: #111; background: #fff; }
body { margin: 0 auto; max-width: 52rem; padding: 1rem; }
header p { margin-top: 0; color: #444; }
section { border-top: 1px solid #ccc; padding: 0.5rem 0 1rem; }
h1 { margin-bottom: 0.25rem; }
h2 { font-size: 1.2rem; }
.row { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: center; margin: 0.5rem 0; }
button, select, input { font: inherit; }
button { padding: 0.3rem 0.8rem; }
:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
#error { border: 2px solid #b00020; background: #fdecee; color: #6d0014; padding: 0.5rem 0.75rem; }
#transcript { min-height: 4.5rem; border: 1px solid #ccc; padding: 0.5rem; }
#transcript .final { color: #111; }
#transcript .volatile { color: #767676; font-style: italic; }
.note { font-size: 0.9rem; color: #555; }
progress { width: 16rem; }
table { border-collapse: collapse; width: 100%; margin-top: 0.5rem; }
caption { text-align: left; font-weight: bold; }
th, td { text-align: left; padding: 0.2rem 0.5rem; border-bottom: 1px solid #ddd; vertical-align: top; }
td.time { white-space: nowrap; font-variant-numeric: tabular-nums; }
#history-list { list-style: none; padding: 0; }
#history-list li { margin: 0.25rem 0; }
#history-list button { text-align: left; width: 100%; }
#history-list .matches { margin: 0.2rem 0 0 1rem; font-size: 0.9rem; }
mark { background: #ffe58a; }
"""#
