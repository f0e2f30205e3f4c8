import { esc } from './escape.js';
import type { Mark, TimelineLayout } from './timeline-layout.js';

const r = (n: number) => Math.round(n * 10) / 10;

function shapeOf(mark: Mark): string {
  const { x, y } = mark;
  switch (mark.shape) {
    case 'line':
      return `<line x1="${r(x)}" x2="${r(x)}" y1="${r(y - 34)}" y2="${r(y + 34)}"/>`;
    case 'dot':
      return `<circle cx="${r(x)}" cy="${r(y)}" r="4"/>`;
    case 'ring':
      return `<circle cx="${r(x)}" cy="${r(y)}" r="3" fill="none"/>`;
    case 'square':
      return `<rect x="${r(x - 3)}" y="${r(y - 3)}" width="6" height="6"/>`;
    case 'triangle':
      return `<path d="M${r(x)} ${r(y - 7)} L${r(x + 6)} ${r(y + 5)} L${r(x - 6)} ${r(y + 5)} Z"/>`;
    case 'cross':
      return `<path d="M${r(x - 5)} ${r(y - 5)} L${r(x + 5)} ${r(y + 5)} M${r(x + 5)} ${r(y - 5)} L${r(x - 5)} ${r(y + 5)}"/>`;
    case 'diamond':
      return `<path d="M${r(x)} ${r(y - 8)} L${r(x + 8)} ${r(y)} L${r(x)} ${r(y + 8)} L${r(x - 8)} ${r(y)} Z"/>`;
    case 'check':
      return `<path d="M${r(x - 4)} ${r(y)} L${r(x - 1)} ${r(y + 4)} L${r(x + 5)} ${r(y - 5)}" fill="none"/>`;
    case 'flag':
      return `<path d="M${r(x)} ${r(y + 10)} L${r(x)} ${r(y - 14)} L${r(x + 10)} ${r(y - 10)} L${r(x)} ${r(y - 6)}"/>`;
    case 'bar':
      return `<rect x="${r(x - 2)}" y="${r(y - 22)}" width="4" height="44"/>`;
    case 'arrow': {
      const x2 = mark.x2 ?? x;
      return `<line x1="${r(x)}" x2="${r(x2)}" y1="${r(y)}" y2="${r(y)}"/><path d="M${r(x2)} ${r(y)} L${r(x2 - 7)} ${r(y - 4)} L${r(x2 - 7)} ${r(y + 4)} Z"/>`;
    }
  }
}

function labelOf(mark: Mark): string {
  if (!mark.label) return '';
  return `<text x="${r(mark.labelX ?? mark.x + 5)}" y="${r(mark.labelY ?? mark.y - 12)}">${esc(mark.label)}</text>`;
}

/** The layout as an SVG document fragment; every mark has a class and `data-kind` for styling and tests. */
export function timelineSvg(layout: TimelineLayout): string {
  const parts: string[] = [`<svg class="timeline" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${layout.width} ${layout.height}" width="${layout.width}" height="${layout.height}">`];
  parts.push('<g class="axis">');
  for (const tick of layout.ticks) {
    parts.push(`<line x1="${r(tick.x)}" x2="${r(tick.x)}" y1="16" y2="${layout.height - 8}"/><text x="${r(tick.x)}" y="12">${esc(tick.label)}</text>`);
  }
  parts.push('</g>');
  for (const lane of layout.lanes) {
    parts.push(`<g class="lane" data-source="${esc(lane.source)}"><text class="lane-label" x="8" y="${r(lane.y + 4)}">${esc(lane.source)}</text>`);
    parts.push(`<line class="lane-axis" x1="110" x2="${layout.width - 24}" y1="${r(lane.y)}" y2="${r(lane.y)}"/>`);
    for (const span of lane.spans) {
      parts.push(
        `<rect class="span ${span.kind}" data-kind="${span.kind}" x="${r(span.x)}" y="${r(span.y)}" width="${r(Math.max(1, span.x2 - span.x))}" height="${span.height}"><title>${esc(span.title)}</title></rect>`,
      );
    }
    for (const mark of lane.marks) {
      parts.push(`<g class="mark mark-${mark.kind}" data-kind="${mark.kind}"><title>${esc(mark.title)}</title>${shapeOf(mark)}${labelOf(mark)}</g>`);
    }
    parts.push('</g>');
  }
  if (layout.nowX !== undefined) parts.push(`<line class="now" x1="${r(layout.nowX)}" x2="${r(layout.nowX)}" y1="16" y2="${layout.height - 8}"/>`);
  parts.push('</svg>');
  return parts.join('');
}
