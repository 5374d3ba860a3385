// The tools page (about/tools.md): runs `python -m npulab …` in Pyodide (in worker.js), served by this site, and
// draws its JSON.
// Nothing is sent anywhere: the only requests are for this site's own files (the runtime and npulab.zip), made
// the first time a tool is used. All text from the tools is inserted as text, never as HTML.
const BASE = new URL(".", import.meta.url);
// where each tool's paste is written in Pyodide's in-memory file system (one file per tool)
const PASTE = { explain: "/tmp/explain.log", smi: "/tmp/npu-smi-info.txt", plan: "/tmp/config.json" };
let ready = null;

// The page's own words in the two languages of the book: the page's lang (the Chinese or the English book) picks the
// table, say(key, fields) fills its {fields}. npulab's answers come in that language from npulab itself (worker.js
// sets NPULAB_LANG). Both tables have the same keys and {fields}, and the table is plain JSON (no comments, no
// trailing commas): tests/site/test_tools_words.py reads it.
const WORDS = {
  "zh": {
    "loading": "正在从本站加载 Python 运行时（Pyodide）与课程的 npulab 包（第一次使用时下载，之后由浏览器缓存）……",
    "fetched": "，从本站下载 {mb} MB",
    "cached": "，文件来自浏览器缓存",
    "ready": "运行时已就绪（实测：加载用时 {seconds} 秒{fetched}）：Python {python}（Pyodide {pyodide}），全部在你的浏览器里运行。",
    "load_failed": "运行时加载失败：{error}",
    "worker_failed": "worker failed",
    "running": "运行中……",
    "failed": "出错了：{error}",
    "exit_code": "退出码 {code}",
    "label": "{label}：",
    "list_separator": "、",
    "sources": "来源：",
    "terminal": "同一命令在终端里的输出：python -m npulab {command}",
    "explain_empty": "请先把报错日志粘贴到上面的输入框。",
    "pasted_log": "（粘贴的日志）",
    "explain_found": "读取了 {lines} 行，得出 {count} 条结论（最可能的根因在前）。",
    "explain_none": "读取了 {lines} 行，没有识别出昇腾错误。",
    "root_error": "根错误行（第 {line} 行）",
    "error_code": "错误码（第 {line} 行）",
    "code_line": "`{code}`：{module} — {name}{meaning}（{source}）",
    "code_name": "{name}：",
    "category": "类别：{category}{codes}",
    "category_codes": "；错误码：{codes}",
    "evidence": "证据：",
    "evidence_line": "第 {line} 行：{text}",
    "cause": "原因",
    "fix": "修复",
    "case": "案例",
    "casebook": "课程案例集里的这一类",
    "smi_empty": "请先把 npu-smi info 的输出粘贴到上面的输入框。",
    "pasted_output": "（粘贴的输出）",
    "smi_summary": "npu-smi {smi}；驱动 {driver}；{count} 个芯片条目：{names}。",
    "smi_no_version": "（版本未写）",
    "smi_no_driver": "（未写）",
    "smi_no_names": "没有芯片名",
    "chip_title": "{name} → {key}（{soc}）",
    "series": "系列",
    "products": "产品",
    "architecture": "架构",
    "role": "用途",
    "role_line": "{role}；训练：{training}；BF16：{bf16}",
    "supported": "支持",
    "unsupported": "不支持",
    "dtypes": "数据类型",
    "programming": "编程与部署路径",
    "notes": "说明",
    "figure_unpublished": "{field}：未公开（{note}）",
    "figure_value": "{field}：{value}{unit}（{kind}；",
    "figure_end": "）",
    "figures": "数字与出处（{count} 项：报告值带来源，未公开的写明）",
    "plan_empty": "请填写模型名，或粘贴模型的 config.json。",
    "plan_title": "{model}（{attention}）在 {tp} 张 {card} 上：{verdict}",
    "fits": "放得下",
    "no_fit": "放不下",
    "params": "参数量",
    "weights": "每卡权重",
    "kv_budget": "每卡 KV cache 预算",
    "kv_per_token": "每个 token 每卡的 KV cache",
    "max_tokens": "最多容纳的 token 数",
    "requested_tokens": "要求的 token 数",
    "smallest_tp": "能放下的最小张量并行度",
    "over_32": "超过 32",
    "cards_at_tp": "该并行度下共需卡数"
  },
  "en": {
    "loading": "Loading the Python runtime (Pyodide) and the course's npulab package from this site (downloaded the first time you use a tool, then cached by your browser) …",
    "fetched": "; {mb} MB downloaded from this site",
    "cached": "; files served from the browser's cache",
    "ready": "Runtime ready (measured: loaded in {seconds} s{fetched}): Python {python} (Pyodide {pyodide}), all running in your browser.",
    "load_failed": "The runtime failed to load: {error}",
    "worker_failed": "worker failed",
    "running": "Running …",
    "failed": "Something went wrong: {error}",
    "exit_code": "exit code {code}",
    "label": "{label}: ",
    "list_separator": ", ",
    "sources": "Sources: ",
    "terminal": "The same command's output in a terminal: python -m npulab {command}",
    "explain_empty": "Paste an error log into the box above first.",
    "pasted_log": "(the pasted log)",
    "explain_found": "Read {lines} lines and reached {count} conclusions (the most likely root cause first).",
    "explain_none": "Read {lines} lines and recognised no Ascend error.",
    "root_error": "Root error line (line {line})",
    "error_code": "Error code (line {line})",
    "code_line": "`{code}`: {module} — {name}{meaning} ({source})",
    "code_name": "{name}: ",
    "category": "Category: {category}{codes}",
    "category_codes": "; error codes: {codes}",
    "evidence": "Evidence: ",
    "evidence_line": "line {line}: {text}",
    "cause": "Cause",
    "fix": "Fix",
    "case": "Case",
    "casebook": "this category in the course's troubleshooting casebook",
    "smi_empty": "Paste the output of npu-smi info into the box above first.",
    "pasted_output": "(the pasted output)",
    "smi_summary": "npu-smi {smi}; driver {driver}; {count} chip entries: {names}.",
    "smi_no_version": "(version not given)",
    "smi_no_driver": "(not given)",
    "smi_no_names": "no chip names",
    "chip_title": "{name} → {key} ({soc})",
    "series": "Series",
    "products": "Products",
    "architecture": "Architecture",
    "role": "Role",
    "role_line": "{role}; training: {training}; BF16: {bf16}",
    "supported": "supported",
    "unsupported": "not supported",
    "dtypes": "Data types",
    "programming": "Programming and deployment routes",
    "notes": "Notes",
    "figure_unpublished": "{field}: not published ({note})",
    "figure_value": "{field}: {value}{unit} ({kind}; ",
    "figure_end": ")",
    "figures": "Figures and their sources ({count} items: reported values with their source, unpublished ones marked)",
    "plan_empty": "Enter a model name or paste the model's config.json.",
    "plan_title": "{model} ({attention}) on {tp} × {card}: {verdict}",
    "fits": "fits",
    "no_fit": "does not fit",
    "params": "Parameters",
    "weights": "Weights per card",
    "kv_budget": "KV cache budget per card",
    "kv_per_token": "KV cache per token per card",
    "max_tokens": "Most tokens that fit",
    "requested_tokens": "Tokens requested",
    "smallest_tp": "Smallest tensor parallel degree that fits",
    "over_32": "more than 32",
    "cards_at_tp": "Cards needed in all at that degree"
  }
};
// npulab answers in the page's language (the Chinese or the English book), not the browser's locale.
const LANG = document.documentElement.lang.startsWith("en") ? "en" : "zh";
// WORDS[LANG][key] with each {field} replaced by fields[field] (one pass: a filled-in value is never read again)
function say(key, fields = {}) {
  return WORDS[LANG][key].replace(/\{(\w+)\}/g, (_, name) => String(fields[name]));
}

const $ = (id) => document.getElementById(id);
function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}
function status(text) { $("npulab-tools-status").textContent = text; }

// Text with `code` spans shown as code and http(s) addresses made into links (sources are "name: https://…").
function linked(text) {
  const span = el("span");
  String(text).split("`").forEach((chunk, c) => {
    if (c % 2) { span.append(el("code", chunk)); return; }
    chunk.split(/(https?:\/\/[^\s，。；、）)<>"]+)/).forEach((part, i) => {
      if (i % 2) {
        const a = el("a", part);
        a.href = part; a.rel = "noopener"; a.target = "_blank";
        span.append(a);
      } else if (part) span.append(document.createTextNode(part));
    });
  });
  return span;
}

// The worker (worker.js) that runs Pyodide; each request gets an id, its answer resolves that request's promise.
let worker = null, nextId = 0;
const waiting = new Map();
function ask(message) {
  if (!worker) {
    worker = new Worker(new URL("worker.js", BASE), { type: "module" });
    worker.onmessage = ({ data }) => {
      const [resolve, reject] = waiting.get(data.id);
      waiting.delete(data.id);
      if (data.error) reject(new Error(data.error)); else resolve(data);
    };
    worker.onerror = (event) => {
      for (const [, reject] of waiting.values()) reject(new Error(event.message || say("worker_failed")));
      waiting.clear();
      worker = null;
    };
  }
  const id = nextId++;
  return new Promise((resolve, reject) => { waiting.set(id, [resolve, reject]); worker.postMessage({ id, lang: LANG, ...message }); });
}

function runtime() {
  if (!ready) {
    status(say("loading"));
    ready = ask({}).then(({ info }) => {
      document.body.dataset.npulabToolsLoadMs = String(info.ms);
      const fetched = info.bytes ? say("fetched", { mb: (info.bytes / 1e6).toFixed(1) }) : say("cached");
      status(say("ready", { seconds: (info.ms / 1000).toFixed(1), fetched, python: info.python, pyodide: info.pyodide }));
      fillChoices(info);
      return info;
    });
    ready.catch((err) => { status(say("load_failed", { error: err.message || err })); ready = null; });
  }
  return ready;
}

// Run `python -m npulab ARGV` after writing FILES ({path: text}); returns {code, stdout, stderr}.
async function cli(argv, files = {}) {
  await runtime();
  return (await ask({ argv, files })).result;
}
async function cliJson(argv, files) {
  const res = await cli(argv, files);
  let data = null;
  try { data = res.stdout.trim() ? JSON.parse(res.stdout) : null; } catch (e) { data = null; }
  return { ...res, data };
}

function fillChoices({ configs, cards }) {
  const models = $("npulab-plan-models");
  models.replaceChildren(...configs.map((name) => { const o = el("option"); o.value = name; return o; }));
  const card = $("npulab-plan-card");
  const current = card.value;
  card.replaceChildren(...cards.map((name) => el("option", name)));
  card.value = cards.includes(current) ? current : cards[0];
}

function card(title, cls) {
  const box = el("section", null, "npulab-card" + (cls ? " " + cls : ""));
  box.append(el("h3", title));
  return box;
}
function row(box, label, value) {
  const p = el("p");
  p.append(el("strong", say("label", { label })));
  p.append(typeof value === "object" && value instanceof Node ? value : linked(value));
  box.append(p);
}
function sourcesList(box, sources) {
  if (!sources || !sources.length) return;
  box.append(el("strong", say("sources")));
  const ul = el("ul", null, "npulab-sources");
  sources.forEach((s) => { const li = el("li"); li.append(linked(s)); ul.append(li); });
  box.append(ul);
}
function cliText(out, argv, text) {
  const d = el("details", null, "npulab-cli");
  d.append(el("summary", say("terminal", { command: argv.join(" ") })));
  d.append(el("pre", text));
  out.append(d);
}
function problem(out, res) {
  out.append(el("p", (res.stderr || res.stdout || say("exit_code", { code: res.code })).trim(), "npulab-error"));
}

const CASEBOOK = "../chapters/01_environment/03_troubleshooting_casebook.html";

async function explainLog(out) {
  const text = $("npulab-explain-input").value;
  if (!text.trim()) return out.append(el("p", say("explain_empty"), "npulab-error"));
  const argv = ["explain", "--no-env", PASTE.explain];
  const res = await cliJson(["explain", "--no-env", "--json", PASTE.explain], { [PASTE.explain]: text });
  if (!res.data) return problem(out, res);
  const r = res.data;
  out.dataset.categories = r.findings.map((f) => f.category).join(",");
  const head = el("p", say(r.findings.length ? "explain_found" : "explain_none",
    { lines: r.lines_read, count: r.findings.length }), "npulab-summary");
  out.append(head);
  if (r.root_error) row(out, say("root_error", { line: r.root_error.line }), r.root_error.text);
  for (const c of r.codes || []) {  // the CLI's line: `code`, module, name, meaning, source
    row(out, say("error_code", { line: c.line }), say("code_line", { code: c.code, module: c.module,
      name: c.name ? say("code_name", { name: c.name }) : "", meaning: c.meaning, source: c.source }));
  }
  r.findings.forEach((f, i) => {
    const box = card(`${i + 1}. ${f.title}`, f.kind === "family" ? "npulab-family" : "npulab-generic");
    box.dataset.category = f.category;
    const codes = f.codes && f.codes.length ? say("category_codes", { codes: f.codes.join(say("list_separator")) }) : "";
    box.append(el("p", say("category", { category: f.category, codes }), "npulab-category"));
    if (f.evidence && f.evidence.length) {
      box.append(el("strong", say("evidence")));
      const pre = el("pre", f.evidence.map((e) => say("evidence_line", { line: e.line, text: e.text })).join("\n"));
      box.append(pre);
    }
    if (f.kind === "family" && f.cause) row(box, say("cause"), f.cause);
    if (f.fix) row(box, say("fix"), f.fix);
    sourcesList(box, f.sources);
    if (f.casebook) {
      const a = el("a", say("casebook"));
      a.href = `${CASEBOOK}#${f.casebook}`;
      row(box, say("case"), a);
    }
    out.append(box);
  });
  cliText(out, ["explain", "--no-env", say("pasted_log")], (await cli(argv)).stdout);
}

async function smiInfo(out) {
  const text = $("npulab-smi-input").value;
  if (!text.trim()) return out.append(el("p", say("smi_empty"), "npulab-error"));
  const res = await cliJson(["smi", "parse", "--json", PASTE.smi], { [PASTE.smi]: text });
  if (!res.data || !Array.isArray(res.data.chips)) return problem(out, res);
  const info = res.data;
  const names = [...new Set(info.chips.map((c) => c.name).filter(Boolean))];
  out.dataset.chips = names.join(",");
  out.append(el("p", say("smi_summary", {
    smi: info.smi_version || say("smi_no_version"), driver: info.driver_version || say("smi_no_driver"),
    count: info.chips.length, names: names.join(say("list_separator")) || say("smi_no_names"),
  }), "npulab-summary"));
  if (info.driver_version) $("npulab-versions-driver").value = info.driver_version;
  for (const name of names) {
    const chip = await cliJson(["chips", "--json", name]);
    if (!chip.data) { problem(out, chip); continue; }
    const c = chip.data;
    const box = card(say("chip_title", { name, key: c.key, soc: c.soc_version }), "npulab-chip");
    box.dataset.chip = c.key;
    const yes = (flag) => say(flag ? "supported" : "unsupported");
    row(box, say("series"), c.series);
    row(box, say("products"), c.products);
    row(box, say("architecture"), c.architecture);
    row(box, say("role"), say("role_line", { role: c.role, training: yes(c.training), bf16: yes(c.bf16) }));
    row(box, say("dtypes"), c.dtypes);
    row(box, say("programming"), (c.programming || []).join(say("list_separator")));
    if (c.notes) row(box, say("notes"), c.notes);
    const figs = el("ul", null, "npulab-sources");
    for (const [field, fig] of Object.entries(c.figures || {})) {
      const li = el("li");
      li.append(document.createTextNode(fig.value === null ? say("figure_unpublished", { field, note: fig.note || "" })
        : say("figure_value", { field, value: fig.value, unit: fig.unit ? " " + fig.unit : "", kind: fig.kind })));
      if (fig.value !== null) { li.append(linked(fig.origin || "")); li.append(document.createTextNode(say("figure_end"))); }
      figs.append(li);
    }
    const details = el("details");
    details.append(el("summary", say("figures", { count: figs.children.length })));
    details.append(figs);
    box.append(details);
    out.append(box);
    $("npulab-versions-chip").value = c.key;
  }
  cliText(out, ["smi", "parse", say("pasted_output")], (await cli(["smi", "parse", PASTE.smi])).stdout);
}

function gib(bytes) { return `${(bytes / 2 ** 30).toFixed(1)} GiB`; }

async function llmPlan(out) {
  const pasted = $("npulab-plan-config").value.trim();
  const model = $("npulab-plan-model").value.trim();
  if (!pasted && !model) return out.append(el("p", say("plan_empty"), "npulab-error"));
  const opts = ["--card", $("npulab-plan-card").value || "910B3", "--tp", $("npulab-plan-tp").value || "1",
    "--batch", $("npulab-plan-batch").value || "1", "--context", $("npulab-plan-context").value || "4096"];
  const target = pasted ? PASTE.plan : model;
  const res = await cliJson(["llm-plan", target, ...opts, "--json"], pasted ? { [PASTE.plan]: pasted } : {});
  if (!res.data) return problem(out, res);
  const p = res.data;
  out.dataset.fits = String(p.fits);
  const box = card(say("plan_title", { model: p.model, attention: p.attention, tp: p.tp, card: p.card,
    verdict: say(p.fits ? "fits" : "no_fit") }), p.fits ? "npulab-fits" : "npulab-nofit");
  row(box, say("params"), `${(p.params / 1e9).toFixed(2)} B`);
  row(box, say("weights"), gib(p.weights_bytes_per_card));
  row(box, say("kv_budget"), gib(p.kv_budget_bytes_per_card));
  row(box, say("kv_per_token"), `${p.kv_bytes_per_token_per_card.toLocaleString()} B`);
  row(box, say("max_tokens"), p.max_tokens.toLocaleString());
  row(box, say("requested_tokens"), p.requested_tokens.toLocaleString());
  row(box, say("smallest_tp"), p.smallest_tp === null ? say("over_32") : String(p.smallest_tp));
  row(box, say("cards_at_tp"), String(p.cards_at_tp));
  out.append(box);
  const argv = ["llm-plan", pasted ? "config.json" : model, ...opts];
  cliText(out, argv, (await cli(["llm-plan", target, ...opts])).stdout);
}

async function versions(out) {
  const argv = ["versions"];
  for (const [flag, id] of [["--cann", "npulab-versions-cann"], ["--driver", "npulab-versions-driver"],
    ["--chip", "npulab-versions-chip"]]) {
    const v = $(id).value.trim();
    if (v) argv.push(flag, v);
  }
  const res = await cliJson([...argv, "--json"]);
  if (!res.data) return problem(out, res);
  const v = res.data;
  for (const section of v.sections || []) {
    const box = card(section.title, `npulab-${section.status || "info"}`);
    for (const line of section.lines || []) { const p = el("p"); p.append(linked(line)); box.append(p); }
    if (section.commands && section.commands.length) box.append(el("pre", section.commands.join("\n")));
    sourcesList(box, section.sources);
    out.append(box);
  }
  cliText(out, argv, (await cli(argv)).stdout);
}

const TOOLS = { explain: explainLog, smi: smiInfo, plan: llmPlan, versions };

async function use(name) {
  const out = $(`npulab-${name}-result`);
  out.replaceChildren(el("p", say("running")));
  out.removeAttribute("data-done");
  try {
    await runtime();
    out.replaceChildren();
    await TOOLS[name](out);
  } catch (err) {
    out.replaceChildren(el("p", say("failed", { error: err }), "npulab-error"));
  }
  out.dataset.done = "1";
}

for (const button of document.querySelectorAll("[data-npulab-tool]")) {
  button.addEventListener("click", () => use(button.dataset.npulabTool));
}
// start loading as soon as the learner begins to type or paste, so that the first answer comes sooner
document.querySelector(".npulab-tools")?.addEventListener("focusin", () => { runtime().catch(() => {}); }, { once: true });
