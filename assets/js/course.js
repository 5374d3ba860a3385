/* The course's own site behaviour (npulab.site.sphinx_extension; docs/site.md), on top of the themes:
 *
 * 1. Sidebar toggles. Each page has two ☰ (.primary-toggle) and two ☷ (.secondary-toggle) buttons: the
 *    pydata-sphinx-theme header's (hidden by sphinx-book-theme) and the article header's (the visible ones). Both
 *    themes bind only the first of each (document.querySelector), so the visible buttons did nothing. Every other
 *    button of a kind forwards its click to the bound one, which keeps the themes' own behaviour (a dialog on
 *    narrow screens, collapsing the sidebar on wide ones); Enter and Space work because they click a button.
 * 2. Tooltips of the header buttons: shown on mouse hover only, never on touch screens or after a tap, so they
 *    cannot stay up over the search button.
 * 3. Chinese search: Sphinx's searchtools.js splits a query on spaces and punctuation only, while the index was
 *    cut by jieba (with the course dictionary assets/search_userdict.txt). A query is cut here by forward maximum
 *    matching over the index's own vocabulary, so "性能分析" is looked up as the terms the index holds; and a page
 *    whose title contains every query term ranks above pages that merely mention them.
 * 4. Notebook downloads: the first code cell of a downloaded notebook installs npulab from the site, relative to
 *    the notebook's own address (npulab.site.download_notebooks). On a click on the .ipynb download, the address
 *    the notebook is downloaded from is written into that cell (NOTEBOOK_URL); if anything fails, the plain link
 *    is followed as before.
 */
(() => {
  "use strict";
  // after the themes' scripts (deferred, later in the page) have bound their buttons and made their tooltips
  const ready = (fn) => (document.readyState === "complete" ? fn() : document.addEventListener("DOMContentLoaded", fn));

  // ---- 1. sidebar toggles --------------------------------------------------------------------------------
  const forwardToggles = (selector) => {
    const buttons = Array.from(document.querySelectorAll(selector));
    const bound = buttons[0];  // the one the themes' scripts bound
    buttons.slice(1).forEach((button) => {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopPropagation();
        hideTooltip(button);
        bound.click();
      });
    });
  };

  // ---- 2. tooltips ---------------------------------------------------------------------------------------
  const tooltipApi = () => (window.bootstrap && window.bootstrap.Tooltip) || null;
  const hideTooltip = (element) => {
    const api = tooltipApi();
    const tip = api && api.getInstance(element);
    if (tip) tip.hide();
  };
  const tameTooltips = () => {
    const api = tooltipApi();
    if (!api) return;
    const touch = window.matchMedia("(hover: none)").matches;
    document.querySelectorAll('.bd-header-article [data-bs-toggle="tooltip"], .bd-header [data-bs-toggle="tooltip"]')
      .forEach((element) => {
        const old = api.getInstance(element);
        if (old) old.dispose();  // restores the title attribute
        if (!touch) new api(element, { trigger: "hover", delay: { show: 300, hide: 0 } });
        element.addEventListener("click", () => hideTooltip(element));
      });
  };

  // sphinx-togglebutton labels its buttons in English, after the page has loaded (the English book keeps them)
  const relabelToggles = () => document.querySelectorAll('button.toggle-button[aria-label="Toggle hidden content"]')
    .forEach((button) => button.setAttribute("aria-label", "展开或收起隐藏的内容"));
  if (!document.documentElement.lang.startsWith("en")) window.addEventListener("load", relabelToggles);

  // cells off screen are laid out only near the viewport (content-visibility in course.css), so a jump to an anchor
  // (a quiz link: quizzes.html#quiz-ch06) lands where the estimated heights put it; settle on the target again
  const settleOnAnchor = () => {
    const id = decodeURIComponent(window.location.hash.slice(1));
    const target = id && document.getElementById(id);
    if (!target) return;
    let tries = 0;
    const again = () => {
      const top = target.getBoundingClientRect().top;
      if (Math.abs(top) > 2 && tries++ < 8) {
        target.scrollIntoView();
        setTimeout(again, 120);
      }
    };
    setTimeout(again, 50);
  };
  window.addEventListener("load", settleOnAnchor);
  window.addEventListener("hashchange", settleOnAnchor);

  ready(() => {
    relabelToggles();
    forwardToggles(".primary-toggle");
    forwardToggles(".secondary-toggle");
    tameTooltips();
  });

  // ---- 3. search -----------------------------------------------------------------------------------------
  const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
  const RUNS = /[\u3400-\u9fff\uf900-\ufaff]+|[\p{Letter}\p{Number}_]+/gu;
  const MAX_WORD = 12;
  let vocabulary = null;
  let lastTerms = [];

  // searchtools.js declares `const Search` and `var Scorer`: the first is a global binding but no window property
  const searchIndex = () => (typeof Search !== "undefined" && Search._index) || null;  // eslint-disable-line no-undef

  const indexVocabulary = () => {
    const index = searchIndex();
    if (!index) return null;
    if (!vocabulary) {
      vocabulary = new Set();
      for (const part of [index.terms || {}, index.titleterms || {}]) {
        for (const word of Object.keys(part)) if (CJK.test(word)) vocabulary.add(word);
      }
    }
    return vocabulary;
  };

  /** Forward maximum matching of a run of Chinese characters over the index's words. Characters that no indexed
   *  word covers are left out, as the index left them out (Sphinx keeps only words of two characters or more:
   *  "的", "在"); a run in which nothing is indexed stays whole, so the search honestly finds nothing for it. */
  const segment = (run, words) => {
    const out = [];
    for (let i = 0; i < run.length;) {
      let n = Math.min(MAX_WORD, run.length - i);
      while (n > 1 && !words.has(run.substr(i, n))) n--;
      if (n > 1 && !out.includes(run.substr(i, n))) out.push(run.substr(i, n));
      i += n;
    }
    return out.length || run.length < 2 ? out : [run];
  };

  const courseSplitQuery = (query) => {
    const words = indexVocabulary();
    const terms = [];
    for (const run of query.match(RUNS) || []) {
      if (CJK.test(run) && words) terms.push(...segment(run, words));
      else terms.push(run);
    }
    lastTerms = terms.map((t) => t.toLowerCase());
    if (window.Scorer && window.Scorer.score !== courseScore) window.Scorer.score = courseScore;  // read after this
    return terms;
  };

  /** Sphinx scores a word in any heading of a page like one in its title; a page whose own title contains
   *  every query term (a lesson named by the query) comes first, the more of the title the query covers the
   *  better; on a tie a lesson (chapters/) ranks above a lab, a lab above its solution. */
  const courseScore = (result) => {
    const [docname, , , , raw] = result;
    const index = searchIndex();
    // among equal matches, the lesson that teaches a term before the lab that tests it, the solution last
    const score = raw + (docname.startsWith("chapters/") ? 2 : 0) - (docname.includes("/solutions/") ? 2 : 0);
    if (!index || !lastTerms.length) return score;
    const at = index.docnames.indexOf(docname);
    const title = at >= 0 ? String(index.titles[at]).toLowerCase() : "";
    if (!title || !lastTerms.every((t) => title.includes(t))) return score;
    const covered = lastTerms.reduce((n, t) => n + t.length, 0) / title.replace(/\s+/g, "").length;
    return score + 50 + Math.round(5 * Math.min(1, covered));
  };

  // ---- 4. notebook downloads ---------------------------------------------------------------------------
  const NOTEBOOK_URL_LINE = /^NOTEBOOK_URL = ".*"$/m;
  const withOrigin = (text, url) => {
    const nb = JSON.parse(text);
    for (const cell of nb.cells || []) {
      if (cell.id !== "course-download-install") continue;
      const source = Array.isArray(cell.source) ? cell.source.join("") : cell.source;
      cell.source = source.replace(NOTEBOOK_URL_LINE, () => `NOTEBOOK_URL = ${JSON.stringify(url)}`);
    }
    return JSON.stringify(nb, null, 1) + "\n";
  };
  document.addEventListener("click", (event) => {
    const link = event.target.closest && event.target.closest('a[href$=".ipynb"]');
    if (!link || !window.fetch || !window.Blob || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const url = new URL(link.getAttribute("href"), window.location.href).href;
    if (!url.includes("/_sources/")) return;
    event.preventDefault();
    fetch(url).then((r) => (r.ok ? r.text() : Promise.reject(r.status))).then((text) => {
      const blob = new Blob([withOrigin(text, url)], { type: "application/x-ipynb+json" });
      const save = document.createElement("a");
      save.href = URL.createObjectURL(blob);
      save.download = url.split("/").pop();
      document.body.appendChild(save);
      save.click();
      setTimeout(() => { URL.revokeObjectURL(save.href); save.remove(); }, 1000);
    }).catch(() => { window.location.href = url; });
  });

  window.splitQuery = courseSplitQuery;  // searchtools.js keeps a splitQuery defined before it, or is overridden
})();
