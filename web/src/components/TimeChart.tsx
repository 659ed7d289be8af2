// A time-series line chart (uPlot: small, canvas, made for Prometheus-style series), loaded as
// its own chunk (React.lazy in the pages that use it). The canvas is labelled for screen
// readers with what it shows: the series, the window, first, last, lowest and highest values.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  /** [unix seconds, value] pairs, oldest first. */
  points: Array<[number, number]>;
}

const COLOURS = ['#0969da', '#1a7f37', '#bf3989', '#9a6700', '#8250df', '#cf222e'];

/** Series sampled at different times become one x axis with gaps (null) where a series has no sample. */
function aligned(series: ChartSeries[]): uPlot.AlignedData {
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p[0])))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = series.map((s) => {
    const col: Array<number | null> = new Array(xs.length).fill(null);
    for (const [t, v] of s.points) col[index.get(t)!] = v;
    return col;
  });
  return [xs, ...ys] as uPlot.AlignedData;
}

export function describe(title: string, unit: string, series: ChartSeries[]): string {
  const parts = series.map((s) => {
    const vs = s.points.map((p) => p[1]);
    if (!vs.length) return `${s.label}: no samples`;
    const f = (v: number) => `${Number.isInteger(v) ? v : v.toPrecision(4)}${unit ? ` ${unit}` : ''}`;
    return `${s.label}: ${vs.length} samples, from ${f(vs[0])} to ${f(vs[vs.length - 1])}, lowest ${f(Math.min(...vs))}, highest ${f(Math.max(...vs))}`;
  });
  return `${title}. ${parts.join('; ')}.`;
}

export default function TimeChart({ title, unit, series, height = 220 }: { title: string; unit: string; series: ChartSeries[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const opts: uPlot.Options = {
      width: Math.max(320, el.clientWidth),
      height,
      legend: { show: series.length > 1 },
      scales: { x: { time: true } },
      axes: [{}, { label: unit || undefined, size: 60 }],
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 2, spanGaps: false }))],
    };
    const plot = new uPlot(opts, aligned(series), el);
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(320, el.clientWidth), height }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [series, unit, height]);
  return <div ref={box} className="chart" role="img" aria-label={describe(title, unit, series)} data-testid="chart" data-points={series.reduce((n, s) => n + s.points.length, 0)} />;
}
