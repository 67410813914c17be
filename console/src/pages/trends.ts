/**
 * Trends: for a chosen time range, per binding, hook runs and errors, exact p50/p99 run time
 * and fuel as charts (uPlot), each with the table of the figures it draws; and usage per
 * space and per gateway key. Every figure is computed on the server from the audit rows
 * and records (GET /api/v1/trends, GET /api/v1/usage). The range lives in the address
 * (`#/trends/from=…&to=…&buckets=…&binding=…`), so a view can be shared.
 */
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { api, type Answer } from "../api.js";
import { clear, h, table, when } from "../dom.js";
import type { Page } from "./page.js";

type Trends = Answer<"/api/v1/trends">;
type Usage = Answer<"/api/v1/usage">;
type Figures = Trends["bindings"][number]["total"];

const HOUR = 60 * 60 * 1000;
const PRESETS: [string, number][] = [["last hour", HOUR], ["last 6 hours", 6 * HOUR], ["last 24 hours", 24 * HOUR], ["last 7 days", 7 * 24 * HOUR], ["last 30 days", 30 * 24 * HOUR]];

const num = (v: number | null | undefined) => (v === null || v === undefined ? "–" : String(Math.round(v * 1000) / 1000));
/** A bucket's width in the largest unit it fills. */
const span = (ms: number) => (ms >= 2 * 86_400_000 ? `${num(ms / 86_400_000)} d` : ms >= 2 * HOUR ? `${num(ms / HOUR)} h` : ms >= 120_000 ? `${num(ms / 60_000)} min` : ms >= 2_000 ? `${num(ms / 1000)} s` : `${ms} ms`);
/** A datetime-local input's value for epoch ms, in the browser's time zone. */
const local = (ms: number) => { const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000); return d.toISOString().slice(0, 16); };

interface Range { from: number; to: number; buckets: number; binding: string }

function rangeOf(param: string): Range {
  const p = new URLSearchParams(param);
  const to = Number(p.get("to")) || Date.now();
  const from = Number(p.get("from")) || to - 24 * HOUR;
  const buckets = Math.min(500, Math.max(1, Number(p.get("buckets")) || 24));
  return { from, to, buckets, binding: p.get("binding") ?? "" };
}

const go = (r: Range) => { location.hash = `#/trends/${new URLSearchParams({ from: String(r.from), to: String(r.to), buckets: String(r.buckets), ...(r.binding ? { binding: r.binding } : {}) })}`; };

/** One chart and, under it, the table of exactly the figures it draws. */
function chart(title: string, id: string, starts: number[], series: { label: string; values: (number | null)[]; color: string }[], charts: uPlot[]): HTMLElement {
  const box = h("div", { class: "chart", "data-testid": `chart-${id}`, role: "img", "aria-label": `${title}: chart; the same figures are in the table below it` });
  const figure = h("figure", { class: "trend" }, h("figcaption", null, title), box,
    table(`${title}, per bucket`, ["Bucket start", ...series.map((s) => s.label)], starts.map((t, i) => [when(t), ...series.map((s) => num(s.values[i]))]), { "data-testid": `table-${id}`, class: "figures" }));
  const make = () => {
    const width = Math.max(320, Math.min(box.clientWidth || 640, 1200));
    charts.push(new uPlot({
      width, height: 180,
      scales: { x: { time: true } },
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false, points: { show: true, size: 5 } }))],
      axes: [{}, { size: 60 }],
    }, [starts.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData, box));
  };
  // Drawn once the box is in the page, so it takes the page's width.
  requestAnimationFrame(make);
  return figure;
}

function totalsRow(b: Trends["bindings"][number], current: string, pick: (binding: string) => void): (string | HTMLElement)[] {
  const t: Figures = b.total;
  return [
    h("button", { type: "button", class: b.binding === current ? "primary" : "secondary", "aria-pressed": b.binding === current ? "true" : "false", onclick: () => pick(b.binding) }, b.binding),
    b.point, b.hook_ref, String(t.calls), String(t.errors), num(t.p50_ms), num(t.p99_ms), num(t.fuel_p50), num(t.fuel_p99),
  ];
}

export const trendsPage: Page = (root, ctx) => {
  const range = rangeOf(ctx.param);
  const charts: uPlot[] = [];
  const preset = h("select", { id: "trend-preset", name: "preset" }, h("option", { value: "" }, "custom"), PRESETS.map(([label, ms]) => h("option", { value: String(ms) }, label)));
  const from = h("input", { id: "trend-from", name: "from", type: "datetime-local", value: local(range.from) });
  const to = h("input", { id: "trend-to", name: "to", type: "datetime-local", value: local(range.to) });
  const buckets = h("input", { id: "trend-buckets", name: "buckets", type: "number", min: 1, max: 500, value: range.buckets, size: 4 });
  preset.addEventListener("change", () => { if (preset.value) { const now = Date.now(); from.value = local(now - Number(preset.value)); to.value = local(now); } });
  const form = h("form", { class: "filters", "aria-label": "Time range", onsubmit: (ev) => {
    ev.preventDefault();
    const now = Date.now();
    const r = preset.value ? { from: now - Number(preset.value), to: now } : { from: Date.parse(from.value), to: Date.parse(to.value) };
    go({ ...r, buckets: Number(buckets.value) || 24, binding: range.binding });
  } },
  h("label", { for: "trend-preset" }, "Range"), preset, h("label", { for: "trend-from" }, "From"), from, h("label", { for: "trend-to" }, "To"), to,
  h("label", { for: "trend-buckets" }, "Buckets"), buckets, h("button", { type: "submit", class: "primary" }, "Show"));
  const said = h("p", { "data-testid": "trend-range", role: "status" }, `From ${when(range.from)} to ${when(range.to)}`);
  const perBinding = h("section", { "aria-label": "Per binding" });
  const usage = h("section", { "aria-label": "Usage" });
  clear(root, form, said, perBinding, usage);
  const q = new URLSearchParams({ from: String(range.from), to: String(range.to), buckets: String(range.buckets) });
  void (async () => {
    const [t, u] = await Promise.all([
      api<Trends>("GET", `/api/v1/trends?${q}`),
      api<Usage>("GET", `/api/v1/usage?${new URLSearchParams({ from: String(range.from), to: String(range.to) })}`),
    ]);
    const current = t.bindings.find((b) => b.binding === range.binding) ?? t.bindings[0];
    const pick = (binding: string) => go({ ...range, binding });
    clear(perBinding,
      h("h2", null, "Hooks per binding"),
      h("p", null, `${t.rows} hook run(s) in the range, in ${t.starts.length} bucket(s) of ${span(t.bucket_ms)}${t.complete ? "" : " (more rows than one answer reads: narrow the range)"}. Exact figures from the audit rows: p50 and p99 are nearest-rank, each run's own figure.`),
      table("Over the whole range (choose a binding to chart it)", ["Binding", "Point", "Plugin", "Runs", "Errors", "p50 ms", "p99 ms", "Fuel p50", "Fuel p99"],
        t.bindings.map((b) => totalsRow(b, current?.binding ?? "", pick)), { "data-testid": "trend-totals" }),
      current ? h("div", { "data-testid": "trend-charts", "data-binding": current.binding },
        h("h2", null, `${current.binding} (${current.point}, ${current.hook_ref})`),
        chart("Runs and errors", "calls", t.starts, [
          { label: "runs", values: current.buckets.map((b) => b.calls), color: "#0b5cad" },
          { label: "errors", values: current.buckets.map((b) => b.errors), color: "#a40e26" }], charts),
        chart("Run time (ms)", "latency", t.starts, [
          { label: "p50 ms", values: current.buckets.map((b) => b.p50_ms), color: "#0f6b2f" },
          { label: "p99 ms", values: current.buckets.map((b) => b.p99_ms), color: "#7a4a00" }], charts),
        chart("Fuel", "fuel", t.starts, [
          { label: "fuel p50", values: current.buckets.map((b) => b.fuel_p50), color: "#5a32a3" },
          { label: "fuel p99", values: current.buckets.map((b) => b.fuel_p99), color: "#b35900" }], charts))
        : h("p", { class: "help" }, "No hook ran in this range."));
    clear(usage,
      h("h2", null, "Usage"),
      h("p", null, `${u.operations} operation(s) started in the range${u.complete ? "" : " (the newest records counted)"}${u.unreadable ? `; ${u.unreadable} record(s) could not be opened and are not counted` : ""}.`),
      table("Per space", ["Space", "Operations", "Errors", "Input tokens", "Output tokens"],
        u.spaces.map((s) => [s.space, String(s.calls), String(s.errors), String(s.input_tokens), String(s.output_tokens)]), { "data-testid": "usage-spaces" }),
      table("Per gateway key", ["Key", "Name", "Space", "Operations", "Errors", "Input tokens", "Output tokens"],
        u.keys.map((k) => [h("code", null, `${k.prefix}…${k.revoked ? " (revoked)" : ""}`), k.name ?? "", k.space, String(k.calls), String(k.errors), String(k.input_tokens), String(k.output_tokens)]), { "data-testid": "usage-keys" }));
  })().catch(ctx.fail);
  return () => { for (const c of charts) c.destroy(); };
};
