"""The report page's style and its one small script, inlined so the file needs nothing else.

Everything works without the script but sorting, filtering and the enlarged screen: an episode's
trajectory is shown by CSS alone when the address names it (`:target`), so a link such as
`report.html#ep-note-2` opens on that episode in any browser, headless ones included.
"""

from __future__ import annotations

CSS = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px} h3{font-size:14px;margin:20px 0 6px}
.meta{color:#555;margin-bottom:16px} .plots{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}
.plots svg{border:1px solid #e3e3e3;border-radius:6px;background:#fff}
table{border-collapse:collapse;font-size:13px} td,th{padding:4px 8px;border-bottom:1px solid #eee;text-align:left;
vertical-align:top} th{background:#f5f5f7} td.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer;user-select:none} table.sortable th[data-dir=asc]::after{content:" \\25B2"}
table.sortable th[data-dir=desc]::after{content:" \\25BC"}
.success{color:#137a2c;font-weight:600} .failure{color:#b3261e;font-weight:600} .undecided{color:#a06800}
.note{color:#666} details summary{cursor:pointer;color:#3b6fd8} .reason{max-width:520px;color:#444}
.filters{margin:8px 0;display:flex;gap:12px;align-items:center} .filters input{width:260px;padding:3px 6px}
.episode{display:none} .episode:target,.episode:has(:target){display:block}
body:has(.episode:target) #overview,body:has(.episode :target) #overview{display:none}
.nav a{margin-right:14px} .instr{background:#f5f5f7;padding:8px 12px;border-radius:6px;max-width:900px}
.steps{display:grid;grid-template-columns:repeat(auto-fill,minmax(440px,1fr));gap:10px}
.step{display:flex;gap:14px;border:1px solid #e6e6e9;border-radius:8px;padding:8px;background:#fff}
.step:target{outline:2px solid #3b6fd8}
.step figure{margin:0;flex:0 0 180px} .thumb{display:block;border:1px solid #ccc;border-radius:4px;cursor:zoom-in;
background:#eee} .noscreen{width:180px;height:80px;display:flex;align-items:center;justify-content:center;
color:#888;background:#f3f3f3;border-radius:4px;font-size:12px;text-align:center}
.sbody{font-size:13px;min-width:0;flex:1} .sbody .head{font-weight:600;margin-bottom:4px}
.act{background:#e8eefc;color:#2a4fa8;border-radius:4px;padding:0 5px;font-family:monospace}
.thought{margin:4px 0;color:#333;white-space:pre-wrap} .human{color:#a06800}
.ms{color:#137a2c} .ask{background:#fff8e1;padding:4px 8px;border-radius:4px;margin:4px 0}
.err{color:#b3261e} .memory ol,.memory ul{margin:2px 0 6px;padding-left:22px} .app{color:#7a4fc0}
.st-decided{color:#137a2c} .st-error{color:#b3261e} .st-undecided{color:#a06800} .st-skipped{color:#888}
table+table{margin-top:10px} .ms-reached{color:#137a2c} .ms-not-reached{color:#b3261e} .ms-unknown{color:#a06800}
pre{white-space:pre-wrap;font-size:11px;max-height:300px;overflow:auto;background:#f7f7f9;padding:6px}
dialog{border:none;padding:0;background:transparent} dialog::backdrop{background:rgba(0,0,0,.7)}
dialog img{max-height:92vh;display:block;border-radius:6px;cursor:zoom-out}
"""

JS = """
(()=>{
const key=(r,i)=>{const t=r.cells[i].textContent.trim(),n=parseFloat(t.replace(/^\\$/,''));return isNaN(n)?t.toLowerCase():n};
for(const t of document.querySelectorAll('table.sortable')){const hs=[...t.tHead.rows[0].cells];
hs.forEach((th,i)=>th.addEventListener('click',()=>{const asc=th.dataset.dir!=='asc';hs.forEach(h=>delete h.dataset.dir);
th.dataset.dir=asc?'asc':'desc';const b=t.tBodies[0];[...b.rows].sort((a,c)=>{const x=key(a,i),y=key(c,i);
const o=typeof x===typeof y?(x<y?-1:x>y?1:0):(typeof x==='number'?-1:1);return asc?o:-o}).forEach(r=>b.appendChild(r))}))}
const q=document.getElementById('filter'),o=document.getElementById('outcome'),shown=document.getElementById('shown');
const apply=()=>{const s=q.value.toLowerCase(),w=o.value;let n=0;
for(const r of document.querySelectorAll('#episodes tbody tr')){const ok=(!s||r.textContent.toLowerCase().includes(s))&&
(!w||r.dataset.outcome===w);r.hidden=!ok;n+=ok}shown.textContent=n};
if(q){q.addEventListener('input',apply);o.addEventListener('change',apply)}
const d=document.getElementById('zoom'),zi=d.querySelector('img');
document.addEventListener('click',e=>{const t=e.target;if(t.classList&&t.classList.contains('thumb')){zi.src=t.dataset.full;
zi.alt=t.alt;d.showModal()}else if(t===zi||t===d){d.close();zi.removeAttribute('src')}});
})();
"""
