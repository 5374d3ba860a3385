// The tools page (about/tools.md): runs `python -m npulab …` in Pyodide (in worker.js), served by this site, and
// draws its JSON.
// Nothing is sent anywhere: the only requests are for this site's own files (the runtime and npulab.zip), made
// the first time a tool is used. All text from the tools is inserted as text, never as HTML.
const BASE = new URL(".", import.meta.url);
// where each tool's paste is written in Pyodide's in-memory file system (one file per tool)
const PASTE = { explain: "/tmp/explain.log", smi: "/tmp/npu-smi-info.txt", plan: "/tmp/config.json" };
let ready = null;

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
// npulab answers in the page's language (the Chinese or the English book), not the browser's locale.
const LANG = document.documentElement.lang.startsWith("en") ? "en" : "zh";
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
      for (const [, reject] of waiting.values()) reject(new Error(event.message || "worker failed"));
      waiting.clear();
      worker = null;
    };
  }
  const id = nextId++;
  return new Promise((resolve, reject) => { waiting.set(id, [resolve, reject]); worker.postMessage({ id, lang: LANG, ...message }); });
}

function runtime() {
  if (!ready) {
    status("正在从本站加载 Python 运行时（Pyodide）与课程的 npulab 包（第一次使用时下载，之后由浏览器缓存）……");
    ready = ask({}).then(({ info }) => {
      document.body.dataset.npulabToolsLoadMs = String(info.ms);
      const fetched = info.bytes ? `，从本站下载 ${(info.bytes / 1e6).toFixed(1)} MB` : "，文件来自浏览器缓存";
      status(`运行时已就绪（实测：加载用时 ${(info.ms / 1000).toFixed(1)} 秒${fetched}）：Python ${info.python}` +
        `（Pyodide ${info.pyodide}），全部在你的浏览器里运行。`);
      fillChoices(info);
      return info;
    });
    ready.catch((err) => { status(`运行时加载失败：${err.message || err}`); ready = null; });
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
  p.append(el("strong", label + "："));
  p.append(typeof value === "object" && value instanceof Node ? value : linked(value));
  box.append(p);
}
function sourcesList(box, sources) {
  if (!sources || !sources.length) return;
  box.append(el("strong", "来源："));
  const ul = el("ul", null, "npulab-sources");
  sources.forEach((s) => { const li = el("li"); li.append(linked(s)); ul.append(li); });
  box.append(ul);
}
function cliText(out, argv, text) {
  const d = el("details", null, "npulab-cli");
  d.append(el("summary", `同一命令在终端里的输出：python -m npulab ${argv.join(" ")}`));
  d.append(el("pre", text));
  out.append(d);
}
function problem(out, res) {
  out.append(el("p", (res.stderr || res.stdout || `退出码 ${res.code}`).trim(), "npulab-error"));
}

const CASEBOOK = "../chapters/01_environment/03_troubleshooting_casebook.html";

async function explainLog(out) {
  const text = $("npulab-explain-input").value;
  if (!text.trim()) return out.append(el("p", "请先把报错日志粘贴到上面的输入框。", "npulab-error"));
  const argv = ["explain", "--no-env", PASTE.explain];
  const res = await cliJson(["explain", "--no-env", "--json", PASTE.explain], { [PASTE.explain]: text });
  if (!res.data) return problem(out, res);
  const r = res.data;
  out.dataset.categories = r.findings.map((f) => f.category).join(",");
  const head = el("p", r.findings.length
    ? `读取了 ${r.lines_read} 行，得出 ${r.findings.length} 条结论（最可能的根因在前）。`
    : `读取了 ${r.lines_read} 行，没有识别出昇腾错误。`, "npulab-summary");
  out.append(head);
  if (r.root_error) row(out, `根错误行（第 ${r.root_error.line} 行）`, r.root_error.text);
  for (const c of r.codes || []) {  // the CLI's line: `code`：module — name：meaning（source）
    row(out, `错误码（第 ${c.line} 行）`, `\`${c.code}\`：${c.module} — ${c.name ? c.name + "：" : ""}${c.meaning}（${c.source}）`);
  }
  r.findings.forEach((f, i) => {
    const box = card(`${i + 1}. ${f.title}`, f.kind === "family" ? "npulab-family" : "npulab-generic");
    box.dataset.category = f.category;
    box.append(el("p", `类别：${f.category}${f.codes && f.codes.length ? "；错误码：" + f.codes.join("、") : ""}`, "npulab-category"));
    if (f.evidence && f.evidence.length) {
      box.append(el("strong", "证据："));
      const pre = el("pre", f.evidence.map((e) => `第 ${e.line} 行：${e.text}`).join("\n"));
      box.append(pre);
    }
    if (f.kind === "family" && f.cause) row(box, "原因", f.cause);
    if (f.fix) row(box, "修复", f.fix);
    sourcesList(box, f.sources);
    if (f.casebook) {
      const a = el("a", "课程案例集里的这一类");
      a.href = `${CASEBOOK}#${f.casebook}`;
      row(box, "案例", a);
    }
    out.append(box);
  });
  cliText(out, ["explain", "--no-env", "（粘贴的日志）"], (await cli(argv)).stdout);
}

async function smiInfo(out) {
  const text = $("npulab-smi-input").value;
  if (!text.trim()) return out.append(el("p", "请先把 npu-smi info 的输出粘贴到上面的输入框。", "npulab-error"));
  const res = await cliJson(["smi", "parse", "--json", PASTE.smi], { [PASTE.smi]: text });
  if (!res.data || !Array.isArray(res.data.chips)) return problem(out, res);
  const info = res.data;
  const names = [...new Set(info.chips.map((c) => c.name).filter(Boolean))];
  out.dataset.chips = names.join(",");
  out.append(el("p", `npu-smi ${info.smi_version || "（版本未写）"}；驱动 ${info.driver_version || "（未写）"}；` +
    `${info.chips.length} 个芯片条目：${names.join("、") || "没有芯片名"}。`, "npulab-summary"));
  if (info.driver_version) $("npulab-versions-driver").value = info.driver_version;
  for (const name of names) {
    const chip = await cliJson(["chips", "--json", name]);
    if (!chip.data) { problem(out, chip); continue; }
    const c = chip.data;
    const box = card(`${name} → ${c.key}（${c.soc_version}）`, "npulab-chip");
    box.dataset.chip = c.key;
    row(box, "系列", c.series);
    row(box, "产品", c.products);
    row(box, "架构", c.architecture);
    row(box, "用途", `${c.role}；训练：${c.training ? "支持" : "不支持"}；BF16：${c.bf16 ? "支持" : "不支持"}`);
    row(box, "数据类型", c.dtypes);
    row(box, "编程与部署路径", (c.programming || []).join("、"));
    if (c.notes) row(box, "说明", c.notes);
    const figs = el("ul", null, "npulab-sources");
    for (const [field, fig] of Object.entries(c.figures || {})) {
      const li = el("li");
      li.append(document.createTextNode(fig.value === null ? `${field}：未公开（${fig.note || ""}）`
        : `${field}：${fig.value}${fig.unit ? " " + fig.unit : ""}（${fig.kind}；`));
      if (fig.value !== null) { li.append(linked(fig.origin || "")); li.append(document.createTextNode("）")); }
      figs.append(li);
    }
    const details = el("details");
    details.append(el("summary", `数字与出处（${figs.children.length} 项：报告值带来源，未公开的写明）`));
    details.append(figs);
    box.append(details);
    out.append(box);
    $("npulab-versions-chip").value = c.key;
  }
  cliText(out, ["smi", "parse", "（粘贴的输出）"], (await cli(["smi", "parse", PASTE.smi])).stdout);
}

function gib(bytes) { return `${(bytes / 2 ** 30).toFixed(1)} GiB`; }

async function llmPlan(out) {
  const pasted = $("npulab-plan-config").value.trim();
  const model = $("npulab-plan-model").value.trim();
  if (!pasted && !model) return out.append(el("p", "请填写模型名，或粘贴模型的 config.json。", "npulab-error"));
  const opts = ["--card", $("npulab-plan-card").value || "910B3", "--tp", $("npulab-plan-tp").value || "1",
    "--batch", $("npulab-plan-batch").value || "1", "--context", $("npulab-plan-context").value || "4096"];
  const target = pasted ? PASTE.plan : model;
  const res = await cliJson(["llm-plan", target, ...opts, "--json"], pasted ? { [PASTE.plan]: pasted } : {});
  if (!res.data) return problem(out, res);
  const p = res.data;
  out.dataset.fits = String(p.fits);
  const box = card(`${p.model}（${p.attention}）在 ${p.tp} 张 ${p.card} 上：${p.fits ? "放得下" : "放不下"}`,
    p.fits ? "npulab-fits" : "npulab-nofit");
  row(box, "参数量", `${(p.params / 1e9).toFixed(2)} B`);
  row(box, "每卡权重", gib(p.weights_bytes_per_card));
  row(box, "每卡 KV cache 预算", gib(p.kv_budget_bytes_per_card));
  row(box, "每个 token 每卡的 KV cache", `${p.kv_bytes_per_token_per_card.toLocaleString()} B`);
  row(box, "最多容纳的 token 数", p.max_tokens.toLocaleString());
  row(box, "要求的 token 数", p.requested_tokens.toLocaleString());
  row(box, "能放下的最小张量并行度", p.smallest_tp === null ? "超过 32" : String(p.smallest_tp));
  row(box, "该并行度下共需卡数", String(p.cards_at_tp));
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
  out.replaceChildren(el("p", "运行中……"));
  out.removeAttribute("data-done");
  try {
    await runtime();
    out.replaceChildren();
    await TOOLS[name](out);
  } catch (err) {
    out.replaceChildren(el("p", `出错了：${err}`, "npulab-error"));
  }
  out.dataset.done = "1";
}

for (const button of document.querySelectorAll("[data-npulab-tool]")) {
  button.addEventListener("click", () => use(button.dataset.npulabTool));
}
// start loading as soon as the learner begins to type or paste, so that the first answer comes sooner
document.querySelector(".npulab-tools")?.addEventListener("focusin", () => { runtime().catch(() => {}); }, { once: true });
