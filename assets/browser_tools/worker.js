// Pyodide and npulab in a worker, off the page's main thread: the page stays responsive while the runtime loads
// and while a tool runs. tools.js sends {id, argv, files}; the answer is {id, result} (the CLI's exit code, standard
// output and standard error), {id, info} for a bare start, or {id, error}. Only this site's files are fetched.
const BASE = new URL(".", import.meta.url);
let ready = null;

async function start() {
  const t0 = performance.now();
  const { loadPyodide } = await import(new URL("pyodide/pyodide.mjs", BASE).href);
  const py = await loadPyodide({ indexURL: new URL("pyodide/", BASE).href });
  const bundle = await fetch(new URL("npulab.zip", BASE));
  if (!bundle.ok) throw new Error(`npulab.zip: HTTP ${bundle.status}`);
  const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
  py.unpackArchive(await bundle.arrayBuffer(), "zip", { extractDir: sitePackages });
  py.runPython("import importlib; importlib.invalidate_caches()");
  const tools = py.pyimport("npulab.site.browser_tools");
  // measured: what this load transferred from the site (0 when the browser's cache served it)
  const bytes = performance.getEntriesByType("resource").filter((e) => e.name.startsWith(BASE.href))
    .reduce((sum, e) => sum + (e.transferSize || 0), 0);
  const info = {
    ms: Math.round(performance.now() - t0), bytes, pyodide: py.version,
    python: py.runPython("import sys; sys.version.split()[0]"),
    configs: py.runPython("from npulab.llm.plan_cli import shipped_configs; shipped_configs()").toJs(),
    cards: py.runPython("from npulab.llm.kv_cache import CARDS; list(CARDS)").toJs(),
  };
  return { py, tools, info };
}

self.onmessage = async ({ data }) => {
  const { id, argv, files, lang } = data;
  try {
    if (!ready) ready = start();
    const { py, tools, info } = await ready;
    if (!argv) { self.postMessage({ id, info }); return; }
    for (const [path, text] of Object.entries(files || {})) py.FS.writeFile(path, text);
    // the language of the page that asks (npulab.core.i18n reads NPULAB_LANG first)
    py.runPython(`import os; os.environ["NPULAB_LANG"] = "${lang === "en" ? "en" : "zh"}"`);
    const args = py.toPy(argv);
    try { self.postMessage({ id, result: JSON.parse(tools.run_cli(args)) }); } finally { args.destroy(); }
  } catch (err) {
    ready = null;
    self.postMessage({ id, error: String(err) });
  }
};
