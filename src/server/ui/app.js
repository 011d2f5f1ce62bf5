// Kuota's dashboard. Lists, then watches, ClusterQueues, LocalQueues,
// Workloads and Preempted Events through kuotad's API (fetch streaming:
// newline-delimited JSON watch events), with a bearer token taken from the
// URL fragment (/ui#token=...) and kept in sessionStorage, and renders them.
// Every string reaches the DOM as a text node or attribute (h() below).
"use strict";

const KUEUE = "/apis/kueue.x-k8s.io/v1beta2";  // the stored version: no conversion
const VISIBILITY = "/apis/visibility.kueue.x-k8s.io/v1beta1";
const GPU = "nvidia.com/gpu";
// What is watched. Cohorts change rarely: they are listed with ClusterQueues
// (browsers give a server six HTTP/1.1 connections; each watch holds one).
// Workloads and Events are read in one namespace when one is given
// (#token=...&namespace=NS) or when the user may not read them everywhere.
const PREEMPTED = "?fieldSelector=" + encodeURIComponent("reason=Preempted");
const WATCHED = {
  clusterqueues: () => KUEUE + "/clusterqueues",
  localqueues: () => KUEUE + "/localqueues",
  workloads: (ns) => KUEUE + (ns ? `/namespaces/${encodeURIComponent(ns)}` : "") + "/workloads",
  events: (ns) => "/api/v1" + (ns ? `/namespaces/${encodeURIComponent(ns)}` : "") + "/events" + PREEMPTED,
};
const TOKEN_KEY = "kuota-token", NAMESPACE_KEY = "kuota-namespace";

const state = {
  objects: { clusterqueues: new Map(), cohorts: new Map(), localqueues: new Map(),
             workloads: new Map(), events: new Map() },
  live: {},        // kind -> its watch is open
  errors: {},      // kind -> the last error, while it lasts
  forbidden: {},   // kind -> the token may not read it (403)
  namespace: "",   // where workloads and events are read ("": everywhere)
  positions: new Map(),  // "ns/name" -> position in its ClusterQueue (visibility API)
};
let token = "", session = null;  // session: the AbortController of the running session

// ---- DOM helpers ----

// h("td", {class: "num"}, "text", child...): an element; strings become text.
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "width") el.style.width = v;
    else if (k === "left") el.style.left = v;
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const $ = (id) => document.getElementById(id);
function fill(id, ...children) { $(id).replaceChildren(h("div", {}, children)); }
function empty(text) { return h("p", { class: "empty" }, text); }
function table(headers, rows, emptyText) {
  if (rows.length === 0) return empty(emptyText);
  return h("table", {},
    h("thead", {}, h("tr", {}, headers.map((x) =>
      h("th", { class: x.startsWith("#") || x.endsWith(" ") ? "num" : null }, x.trim())))),
    h("tbody", {}, rows));
}

// ---- Kubernetes values ----

const SUFFIX = { n: 1e-9, u: 1e-6, m: 1e-3, "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15,
                 E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50,
                 Ei: 2 ** 60 };
// A quantity ("500m", "2Gi", 4) as a number.
function qty(q) {
  if (typeof q === "number") return q;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)([a-zA-Z]*)$/.exec(String(q ?? "").trim());
  return m && m[2] in SUFFIX ? parseFloat(m[1]) * SUFFIX[m[2]] : 0;
}
function fmt(v, resource) {
  const round = (x) => String(Math.round(x * 100) / 100);
  if (/memory|storage/.test(resource || "") && Math.abs(v) >= 1024) {
    const units = ["Ki", "Mi", "Gi", "Ti", "Pi"];
    let i = -1;
    while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
    return round(v) + units[i];
  }
  return round(v);
}
function cond(o, type) { return (o.status?.conditions || []).find((c) => c.type === type); }
function isTrue(o, type) { return cond(o, type)?.status === "True"; }
function key(o) { return (o.metadata.namespace ? o.metadata.namespace + "/" : "") + o.metadata.name; }
function ago(ts) {
  const s = Math.max(0, Math.floor((Date.now() - Date.parse(ts)) / 1000));
  if (!isFinite(s)) return "";
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s";
  if (s < 86400) return Math.floor(s / 3600) + "h" + String(Math.floor(s / 60) % 60).padStart(2, "0") + "m";
  return Math.floor(s / 86400) + "d" + Math.floor(s / 3600) % 24 + "h";
}
// A cell that counts up from `ts` (refreshed every second).
function since(ts) { return h("td", { class: "num", "data-since": ts }, ts ? ago(ts) : ""); }

// ---- the API ----

class ApiError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}
async function api(path, signal, body) {
  const reply = await fetch(path, {
    method: body ? "POST" : "GET", body: body && JSON.stringify(body),
    headers: { Authorization: "Bearer " + token, Accept: "application/json",
               ...(body && { "Content-Type": "application/json" }) },
    cache: "no-store", signal,
  });
  if (reply.status === 401) { signOut("The token was refused (401 Unauthorized)."); }
  if (!reply.ok) {
    let message = reply.status + " " + reply.statusText;
    try { message = (await reply.json()).message || message; } catch (e) { /* not a Status */ }
    throw new ApiError(reply.status, message);
  }
  return reply;
}
async function* lines(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let i;
      while ((i = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, i).trim();
        buffer = buffer.slice(i + 1);
        if (line) yield line;  // blank lines are heartbeats
      }
    }
    if (buffer.trim()) yield buffer.trim();
  } finally {
    reader.cancel().catch(() => {});
  }
}
const sleep = (ms, signal) => new Promise((resolve) => {
  const t = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => { clearTimeout(t); resolve(); }, { once: true });
});
async function list(kind, path, signal) {
  const body = await (await api(path, signal)).json();
  const map = new Map();
  for (const o of body.items || []) map.set(key(o), o);
  state.objects[kind] = map;
  return body.metadata?.resourceVersion || "";
}

// Lists `kind`, then watches it from the list's resourceVersion; lists again
// when the watch ends or says 410 Gone, backs off after errors.
async function follow(kind, signal) {
  let backoff = 500;
  while (!signal.aborted) {
    const path = WATCHED[kind](state.namespace);
    try {
      const rv = await list(kind, path, signal);
      if (kind === "clusterqueues") await listCohorts(signal);
      state.errors[kind] = null;
      state.forbidden[kind] = false;
      changed();
      const watch = await api(path + (path.includes("?") ? "&" : "?") +
                              "watch=1&resourceVersion=" + encodeURIComponent(rv), signal);
      state.live[kind] = true;
      changed();
      backoff = 500;
      for await (const line of lines(watch.body)) {
        const event = JSON.parse(line);
        const o = event.object;
        if (event.type === "ERROR") {
          if (o?.code === 410) break;  // too old: list again
          throw new ApiError(o?.code, o?.message || "watch error");
        }
        if (event.type === "ADDED" || event.type === "MODIFIED") state.objects[kind].set(key(o), o);
        else if (event.type === "DELETED") state.objects[kind].delete(key(o));
        changed();
      }
    } catch (e) {
      if (signal.aborted) return;
      if (e.status === 403 && !state.namespace && (kind === "workloads" || kind === "events") &&
          await ownNamespace(signal)) {
        continue;  // read them in the user's namespace instead
      }
      if (e.status !== 410) {
        state.errors[kind] = e.message || String(e);
        state.forbidden[kind] = e.status === 403;
        backoff = Math.min(backoff * 2, e.status === 403 ? 30000 : 10000);
      }
    }
    state.live[kind] = false;
    changed();
    await sleep(backoff, signal);
  }
}
// A user's own namespace is named after them (kuota login): who the token is.
async function ownNamespace(signal) {
  try {
    const review = await (await api("/apis/authentication.k8s.io/v1/selfsubjectreviews", signal,
      { apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" })).json();
    const name = review.status?.userInfo?.username || "";
    if (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) state.namespace = state.namespace || name;
  } catch (e) { /* stay as we are */ }
  return !!state.namespace;
}
async function listCohorts(signal) {
  try { await list("cohorts", KUEUE + "/cohorts", signal); } catch (e) { /* optional */ }
}

// Positions in each ClusterQueue from the visibility API, refreshed a moment
// after the workloads change; without it, pending workloads are shown in
// priority, then creation, order.
let positionsTimer = null;
function refreshPositions() {
  if (positionsTimer || !session) return;
  const signal = session.signal;
  positionsTimer = setTimeout(async () => {
    positionsTimer = null;
    const positions = new Map();
    for (const cq of new Set(pendingWorkloads().map((w) => w.cq).filter(Boolean))) {
      try {
        const reply = await api(VISIBILITY + "/clusterqueues/" + encodeURIComponent(cq) +
                                "/pendingworkloads", signal);
        for (const item of (await reply.json()).items || []) {
          positions.set(item.metadata.namespace + "/" + item.metadata.name,
                        { position: item.positionInClusterQueue, priority: item.priority });
        }
      } catch (e) { if (signal.aborted) return; }
    }
    state.positions = positions;
    render();
  }, 700);
}

// ---- the model ----

// The ClusterQueue a workload is in: its admission's, else its LocalQueue's.
function clusterQueueOf(w) {
  if (w.status?.admission?.clusterQueue) return w.status.admission.clusterQueue;
  const lq = state.objects.localqueues.get(w.metadata.namespace + "/" + w.spec?.queueName);
  return lq?.spec?.clusterQueue || "";
}
function usage(w) {  // resource -> quantity, over its pod sets
  const total = {};
  for (const ps of w.status?.admission?.podSetAssignments || []) {
    for (const [r, q] of Object.entries(ps.resourceUsage || {})) total[r] = (total[r] || 0) + qty(q);
  }
  return total;
}
function whyPending(w) {
  if (w.spec?.active === false) return "deactivated (spec.active is false)";
  const reserved = cond(w, "QuotaReserved");
  if (reserved?.status === "True") {
    return "quota reserved, waiting for admission checks" +
           (cond(w, "Admitted")?.message ? ": " + cond(w, "Admitted").message : "");
  }
  return reserved?.message || "queued, not yet tried";
}
function pendingWorkloads() {
  const out = [];
  for (const w of state.objects.workloads.values()) {
    if (isTrue(w, "Finished") || isTrue(w, "Admitted")) continue;
    out.push({ w, k: key(w), cq: clusterQueueOf(w), why: whyPending(w) });
  }
  const pos = (x) => state.positions.get(x.k)?.position ?? Infinity;
  return out.sort((a, b) => a.cq.localeCompare(b.cq) || pos(a) - pos(b) ||
    (b.w.spec?.priority || 0) - (a.w.spec?.priority || 0) ||
    Date.parse(a.w.metadata.creationTimestamp) - Date.parse(b.w.metadata.creationTimestamp) ||
    a.k.localeCompare(b.k));
}
function admittedWorkloads() {
  return [...state.objects.workloads.values()]
    .filter((w) => isTrue(w, "Admitted") && !isTrue(w, "Finished"))
    .map((w) => ({ w, k: key(w), cq: clusterQueueOf(w), since: cond(w, "Admitted").lastTransitionTime }))
    .sort((a, b) => a.cq.localeCompare(b.cq) || Date.parse(a.since) - Date.parse(b.since));
}

// Quota per "flavor resource" of a ClusterQueue or Cohort:
// {flavor, resource, nominal, total, borrowed, lent}.
function quotas(o) {
  const rows = new Map();
  const row = (f, r) => {
    const k = f + " " + r;
    if (!rows.has(k)) rows.set(k, { flavor: f, resource: r, nominal: 0, lendable: 0, total: 0, borrowed: 0, lent: 0 });
    return rows.get(k);
  };
  for (const f of (o.spec?.resourceGroups || []).flatMap((g) => g.flavors || [])) {
    for (const r of f.resources || []) {
      const x = row(f.name, r.name);
      x.nominal = qty(r.nominalQuota);
      x.lendable = r.lendingLimit !== undefined ? qty(r.lendingLimit) : x.nominal;
    }
  }
  for (const f of o.status?.flavorsReservation || []) {
    for (const r of f.resources || []) Object.assign(row(f.name, r.name), { total: qty(r.total), borrowed: qty(r.borrowed) });
  }
  return [...rows.values()];
}

// The cohort forest: cohorts from Cohort objects, ClusterQueues' spec.cohortName
// and Cohorts' spec.parentName; lent quota estimated per tree (what the tree
// borrows, shared among the lenders in proportion to their unused quota).
function cohortForest() {
  const { cohorts, clusterqueues } = state.objects;
  const node = new Map();
  const get = (name) => {
    if (!node.has(name)) node.set(name, { name, obj: cohorts.get(name), cohorts: [], cqs: [], parent: "" });
    return node.get(name);
  };
  for (const c of cohorts.values()) get(c.metadata.name).parent = c.spec?.parentName || "";
  const loose = [];
  for (const cq of [...clusterqueues.values()].sort((a, b) => key(a).localeCompare(key(b)))) {
    const entry = { cq, quotas: quotas(cq) };
    if (cq.spec?.cohortName) get(cq.spec.cohortName).cqs.push(entry); else loose.push(entry);
  }
  for (const n of [...node.values()]) if (n.parent) get(n.parent);
  const roots = [];
  for (const n of [...node.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const parent = n.parent && node.get(n.parent);
    if (parent && !isAncestor(node, n.name, n.parent)) parent.cohorts.push(n); else roots.push(n);
  }
  for (const root of roots) estimateLent(root);
  for (const entry of loose) estimateLent({ cohorts: [], cqs: [entry] });
  return { roots, loose };
}
function isAncestor(node, name, of) {  // guards against parentName cycles
  if (of === name) return true;
  for (let n = node.get(of), hops = 0; n && hops < 1000; n = node.get(n.parent), hops++) {
    if (n.parent === name) return true;
  }
  return false;
}
function estimateLent(root) {
  const all = [];
  const walk = (n) => { all.push(...n.cqs); n.cohorts.forEach(walk); };
  walk(root);
  const byKey = new Map();  // "flavor resource" -> {borrowed, unused}
  const add = (q, unused, borrowed) => {
    const k = q.flavor + " " + q.resource;
    const s = byKey.get(k) || { borrowed: 0, unused: 0 };
    s.borrowed += borrowed; s.unused += unused;
    byKey.set(k, s);
  };
  for (const e of all) {
    for (const q of e.quotas) {
      q.unused = Math.max(0, Math.min(q.lendable, q.nominal - (q.total - q.borrowed)));
      add(q, q.unused, q.borrowed);
    }
  }
  const addCohortQuota = (n) => {  // a Cohort's own quota lends too
    if (n.obj) for (const q of quotas(n.obj)) add(q, q.nominal, 0);
    n.cohorts.forEach(addCohortQuota);
  };
  addCohortQuota(root);
  for (const e of all) {
    for (const q of e.quotas) {
      const s = byKey.get(q.flavor + " " + q.resource);
      q.lent = s.unused > 0 ? q.unused * Math.min(1, s.borrowed / s.unused) : 0;
    }
  }
}

// ---- rendering ----

function bar(q) {
  const own = Math.max(0, q.total - q.borrowed);
  const scale = Math.max(q.nominal + q.borrowed, q.total, q.nominal, 1e-9);
  const pct = (v) => (100 * Math.max(0, v) / scale).toFixed(2) + "%";
  const used = Math.min(own, q.nominal);
  const lent = Math.min(q.lent, Math.max(0, q.nominal - used));
  return h("div", { class: "bar", title: `${fmt(q.total, q.resource)} used of ${fmt(q.nominal, q.resource)} nominal` },
    h("div", { class: "seg used", width: pct(used) }),
    h("div", { class: "seg lent", width: pct(lent) }),
    h("div", { class: "seg free", width: pct(q.nominal - used - lent) }),
    h("div", { class: "seg borrowed", width: pct(q.borrowed + Math.max(0, own - q.nominal)) }),
    h("div", { class: "nominal", left: `calc(${pct(q.nominal)} - 1px)` }));
}
function quotaRow(q) {
  const r = q.resource;
  const extra = [q.borrowed > 0 && `borrowed ${fmt(q.borrowed, r)}`, q.lent > 0.0005 && `lent ~${fmt(q.lent, r)}`]
    .filter(Boolean).join(", ");
  return h("div", { class: "quota", "data-flavor": q.flavor, "data-resource": r },
    h("span", { class: "label", title: `${r} on flavor ${q.flavor}` }, r, h("span", { class: "muted" }, " · " + q.flavor)),
    bar(q),
    h("span", { class: "value" }, `${fmt(q.total, r)} / ${fmt(q.nominal, r)}`, extra && h("span", { class: "muted" }, ` (${extra})`)));
}
function cqCard({ cq, quotas: qs }) {
  const s = cq.status || {};
  const active = cond(cq, "Active");
  const inactive = active && active.status !== "True";
  return h("div", { class: "cq" + (inactive ? " inactive" : ""), "data-cq": cq.metadata.name },
    h("div", {},
      h("span", { class: "name" }, cq.metadata.name),
      cq.spec?.cohortName && h("span", { class: "badge" }, "cohort " + cq.spec.cohortName),
      inactive && h("span", { class: "badge bad", title: active.message || "" }, "inactive: " + (active.reason || "")),
      h("span", { class: "counts" }, `${s.pendingWorkloads || 0} pending · ${s.admittedWorkloads || 0} admitted`)),
    qs.length ? qs.map(quotaRow) : empty("no quota"));
}
function cohortBlock(n) {
  const parent = n.obj?.spec?.parentName;
  return h("div", { class: "cohort", "data-cohort": n.name },
    h("div", { class: "title" }, "cohort " + n.name,
      h("span", { class: "muted" }, n.obj ? (parent ? ` (in ${parent})` : "") : " (implicit)")),
    n.obj && quotas(n.obj).length > 0 && h("div", { class: "muted" }, "own quota: " +
      quotas(n.obj).map((q) => `${q.resource} ${fmt(q.nominal, q.resource)} on ${q.flavor}`).join(", ")),
    n.cqs.length > 0 && h("div", { class: "cqs" }, n.cqs.map(cqCard)),
    n.cohorts.map(cohortBlock));
}
function renderCohorts() {
  const { roots, loose } = cohortForest();
  if (roots.length === 0 && loose.length === 0) return fill("cohorts", empty(problem("clusterqueues") || "No ClusterQueues."));
  fill("cohorts", h("div", { class: "forest" }, roots.map(cohortBlock),
    loose.length > 0 && h("div", { class: "cohort" }, h("div", { class: "title" }, "no cohort"),
      h("div", { class: "cqs" }, loose.map(cqCard)))));
}
function renderGpus() {
  const used = new Map();
  for (const w of state.objects.workloads.values()) {
    if (!isTrue(w, "QuotaReserved") || isTrue(w, "Finished")) continue;
    const g = usage(w)[GPU] || 0;
    if (g > 0) used.set(clusterQueueOf(w), (used.get(clusterQueueOf(w)) || 0) + g);
  }
  const rows = [];
  for (const cq of [...state.objects.clusterqueues.values()].sort((a, b) => key(a).localeCompare(key(b)))) {
    const nominal = quotas(cq).filter((q) => q.resource === GPU).reduce((s, q) => s + q.nominal, 0);
    const n = used.get(cq.metadata.name) || 0;
    if (nominal === 0 && n === 0) continue;
    const q = { resource: GPU, nominal, total: n, borrowed: Math.max(0, n - nominal), lent: 0 };
    rows.push(h("tr", { "data-cq": cq.metadata.name }, h("td", {}, cq.metadata.name),
      h("td", { class: "num" }, fmt(n)), h("td", { class: "num" }, fmt(nominal)), h("td", { class: "barcell" }, bar(q))));
  }
  fill("gpus", table(["ClusterQueue", "in use ", "nominal ", ""], rows,
    problem("workloads") || "No ClusterQueue has nvidia.com/gpu quota, and no admitted workload uses a GPU."));
}
function renderLocalQueues() {
  const rows = [...state.objects.localqueues.values()].sort((a, b) => key(a).localeCompare(key(b))).map((lq) =>
    h("tr", { "data-lq": key(lq) }, h("td", {}, lq.metadata.namespace), h("td", {}, lq.metadata.name),
      h("td", {}, lq.spec?.clusterQueue || ""), h("td", { class: "num" }, lq.status?.pendingWorkloads ?? 0),
      h("td", { class: "num" }, lq.status?.admittedWorkloads ?? 0)));
  fill("localqueues", table(["Namespace", "LocalQueue", "ClusterQueue", "pending ", "admitted "], rows,
    problem("localqueues") || "No LocalQueues."));
}
function renderPending() {
  let last = "", n = 0;
  const rows = pendingWorkloads().map(({ w, k, cq, why }) => {
    n = cq === last ? n + 1 : 1;
    last = cq;
    const evicted = cond(w, "Evicted");
    const seen = state.positions.get(k);
    return h("tr", { "data-workload": k, class: [evicted?.status === "True" && "evicted", n === 1 && "first"].filter(Boolean).join(" ") },
      h("td", { class: "num" }, seen ? seen.position + 1 : n),
      h("td", { class: "name" }, k), h("td", { class: "name" }, `${w.spec?.queueName || ""} → ${cq || "?"}`),
      h("td", { class: "name" }, priority(w, seen?.priority)), since(w.metadata.creationTimestamp),
      h("td", { class: "why" }, why, evicted?.status === "True" &&
        h("div", { class: "muted" }, `evicted (${evicted.reason}): ${brief(evicted.message)}`)));
  });
  fill("pending", table(["#", "Workload", "LocalQueue → ClusterQueue", "Priority", "waiting ", "Why pending"],
    rows, problem("workloads") || "No pending workloads."));
}
function renderAdmitted() {
  const rows = admittedWorkloads().map(({ w, k, cq, since: t }) => {
    const flavors = new Set();
    for (const ps of w.status.admission?.podSetAssignments || []) Object.values(ps.flavors || {}).forEach((f) => flavors.add(f));
    const use = Object.entries(usage(w)).map(([r, v]) => `${r} ${fmt(v, r)}`).join(", ");
    const evicted = isTrue(w, "Evicted");
    return h("tr", { "data-workload": k, class: evicted ? "evicted" : null },
      h("td", { class: "name" }, k), h("td", {}, cq),
      // The MultiKueue worker that admitted it (status.clusterName); empty when it runs here.
      h("td", { class: "cluster" }, w.status?.clusterName || ""),
      h("td", { class: "flavors" }, [...flavors].join(", ")),
      h("td", {}, use), since(t), h("td", {}, evicted ? "being evicted: " + brief(cond(w, "Evicted").message) : "running"));
  });
  fill("admitted", table(["Workload", "ClusterQueue", "Cluster", "Flavors", "Resources", "running for ", "State"], rows,
    problem("workloads") || "No admitted workloads."));
}
// Preemptions: Preempted Events, and workloads whose Preempted (or Evicted
// by preemption) condition is set; the latest per workload, newest first.
function renderPreemptions() {
  const latest = new Map();
  const note = (k, time, message) => {
    const prev = latest.get(k);
    if (!prev || Date.parse(time) > Date.parse(prev.time)) latest.set(k, { k, time, message });
  };
  for (const e of state.objects.events.values()) {
    const o = e.involvedObject || {};
    note((o.namespace ? o.namespace + "/" : "") + o.name, e.lastTimestamp || e.eventTime || e.metadata.creationTimestamp, e.message || "");
  }
  for (const w of state.objects.workloads.values()) {
    const p = cond(w, "Preempted"), ev = cond(w, "Evicted");
    if (p?.status === "True") note(key(w), p.lastTransitionTime, p.message || p.reason);
    else if (ev?.status === "True" && ev.reason === "Preempted") note(key(w), ev.lastTransitionTime, ev.message || "");
  }
  const rows = [...latest.values()].sort((a, b) => Date.parse(b.time) - Date.parse(a.time)).slice(0, 15).map((p) =>
    h("tr", { "data-workload": p.k }, since(p.time), h("td", { class: "name" }, p.k), h("td", {}, brief(p.message))));
  fill("preemptions", table(["ago ", "Workload", "Message"], rows, problem("events") || "No recent preemptions."));
}
// Kueue's "(UID: ..., name: ns/name)" as just the name.
function brief(message) { return (message || "").replace(/ \(UID: [^,)]*, name: ([^)]*)\)/g, " $1"); }
function priority(w, value) {
  const v = w.spec?.priority ?? value;
  return [w.spec?.priorityClassRef?.name, v !== undefined && `(${v})`].filter(Boolean).join(" ") || "0";
}
function problem(kind) { return state.errors[kind] ? `Cannot read ${kind}: ${state.errors[kind]}` : ""; }
function renderStatus() {
  const kinds = Object.keys(WATCHED);
  const live = kinds.every((k) => state.live[k] || state.forbidden[k]);
  const errors = kinds.filter((k) => state.errors[k] && !state.forbidden[k]);
  const denied = kinds.filter((k) => state.forbidden[k]);
  const el = $("status");
  el.className = "status " + (live ? "live" : errors.length ? "down" : "");
  el.textContent = (live ? "live" : errors.length ? "retrying: " + errors.join(", ") : "connecting") +
    (state.namespace ? ` · namespace ${state.namespace}` : "") +
    (denied.length ? ` · no access to ${denied.join(", ")}` : "");
  el.title = errors.map((k) => `${k}: ${state.errors[k]}`).join("\n");
  document.body.dataset.live = String(live);
}
function render() {
  renderStatus();
  renderCohorts();
  renderGpus();
  renderLocalQueues();
  renderPending();
  renderAdmitted();
  renderPreemptions();
}
let renderTimer = null;
function changed() {  // coalesces bursts of events into one render
  if (renderTimer) return;
  renderTimer = setTimeout(() => { renderTimer = null; render(); refreshPositions(); }, 80);
}

// ---- session ----

// #token=T&namespace=NS (decodeURIComponent, not URLSearchParams: "+" stays "+").
function takeToken() {
  const params = {};
  for (const part of location.hash.slice(1).split("&")) {
    const i = part.indexOf("=");
    try { if (i > 0) params[part.slice(0, i)] = decodeURIComponent(part.slice(i + 1)); } catch (e) { /* bad escape */ }
  }
  if (params.token !== undefined) {
    sessionStorage.setItem(TOKEN_KEY, params.token);
    sessionStorage.setItem(NAMESPACE_KEY, params.namespace || "");
    history.replaceState(null, "", location.pathname + location.search);  // out of the address bar
  }
  state.namespace = sessionStorage.getItem(NAMESPACE_KEY) || "";
  return sessionStorage.getItem(TOKEN_KEY) || "";
}
function start() {
  token = takeToken();
  $("forget").hidden = !token;
  $("login").hidden = !!token;
  $("dashboard").hidden = !token;
  if (!token) { $("status").textContent = "signed out"; return; }
  stop();
  session = new AbortController();
  for (const kind of Object.keys(WATCHED)) follow(kind, session.signal);
  render();
}
function stop() {
  if (session) session.abort();
  session = null;
  state.live = {};
  state.errors = {};
  state.forbidden = {};
}
function signOut(message) {
  stop();
  sessionStorage.removeItem(TOKEN_KEY);
  $("login-error").hidden = !message;
  $("login-error").textContent = message || "";
  start();
}

document.addEventListener("DOMContentLoaded", () => {
  $("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("token").value.trim());
    sessionStorage.setItem(NAMESPACE_KEY, $("namespace").value.trim());
    $("token").value = "";
    $("login-error").hidden = true;
    start();
  });
  $("forget").addEventListener("click", () => signOut(""));
  window.addEventListener("hashchange", start);
  // A hidden tab gives its watches (and connections) back; shown, it lists again.
  document.addEventListener("visibilitychange", () => {
    if (document.hidden) { stop(); renderStatus(); } else if (!session) start();
  });
  setInterval(() => {
    for (const el of document.querySelectorAll("[data-since]")) el.textContent = ago(el.dataset.since);
  }, 1000);
  start();
});
