import { createCanvas } from '@napi-rs/canvas';
import { Chart, registerables, type Plugin } from 'chart.js';
import { formatCount, middleTruncate } from '../format.js';

/**
 * The digest's chart: the top pages as horizontal bars, human vs AI visitors, rendered in-process
 * with chart.js on @napi-rs/canvas (no browser, no network) and encoded as PNG.
 */

Chart.register(...registerables);

/** Image width in px. */
export const CHART_WIDTH = 1200;
/** Image height in px. */
export const CHART_HEIGHT = 720;
/** Longest page label on the axis, in code points. */
const LABEL_MAX = 42;
const FONT = "'DejaVu Sans', 'Liberation Sans', Arial, sans-serif";
const COLORS = { human: '#2563eb', ai: '#f59e0b', text: '#1f2937', grid: '#e5e7eb' };

/** One bar pair of the chart. */
interface ChartPage {
  path: string;
  human: number;
  ai: number;
}

/** Paints a white background (PNG is transparent otherwise; unreadable in Slack's dark theme). */
const whiteBackground: Plugin<'bar'> = {
  id: 'whiteBackground',
  beforeDraw(chart) {
    const { ctx } = chart;
    ctx.save();
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  },
};

/**
 * Renders the chart.
 *
 * @param pages - the top pages, most visited first (≤ 10 is readable).
 * @param title - e.g. "Top pages, Nov 15 – Nov 21, 2026: human vs AI visitors".
 * @returns PNG bytes (starts with the PNG signature), {@link CHART_WIDTH}×{@link CHART_HEIGHT}.
 * @throws if the canvas cannot be created or encoded (callers post the digest without the chart).
 */
export async function renderDigestChart(pages: ChartPage[], title: string): Promise<Buffer> {
  const canvas = createCanvas(CHART_WIDTH, CHART_HEIGHT);
  const chart = new Chart(
    // chart.js types expect a DOM canvas; @napi-rs/canvas implements the 2D context it uses.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    canvas as any,
    {
      type: 'bar',
      data: {
        labels: pages.map((p) => middleTruncate(p.path, LABEL_MAX)),
        datasets: [
          { label: 'Human', data: pages.map((p) => p.human), backgroundColor: COLORS.human, borderRadius: 3 },
          { label: 'AI', data: pages.map((p) => p.ai), backgroundColor: COLORS.ai, borderRadius: 3 },
        ],
      },
      options: {
        indexAxis: 'y',
        animation: false,
        responsive: false,
        devicePixelRatio: 1,
        layout: { padding: { top: 12, right: 32, bottom: 12, left: 12 } },
        plugins: {
          title: { display: true, text: title, color: COLORS.text, font: { family: FONT, size: 22, weight: 'bold' } },
          legend: { position: 'top', labels: { color: COLORS.text, font: { family: FONT, size: 16 } } },
          tooltip: { enabled: false },
        },
        scales: {
          x: {
            beginAtZero: true,
            grid: { color: COLORS.grid },
            ticks: { color: COLORS.text, font: { family: FONT, size: 14 }, callback: (v) => formatCount(Number(v)) },
            title: { display: true, text: 'Unique visitors', color: COLORS.text, font: { family: FONT, size: 14 } },
          },
          y: { grid: { display: false }, ticks: { color: COLORS.text, font: { family: FONT, size: 15 } } },
        },
      },
      plugins: [whiteBackground],
    },
  );
  try {
    return await canvas.encode('png');
  } finally {
    chart.destroy();
  }
}
