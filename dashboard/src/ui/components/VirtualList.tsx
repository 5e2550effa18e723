import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/** Renders only the rows in view (fixed row height), so thousands of rows stay cheap. */
export function VirtualList(props: {
  count: number;
  rowHeight: number;
  /** Viewport height in px. */
  height: number;
  label: string;
  renderRow: (index: number) => ComponentChildren;
}) {
  const { count, rowHeight, renderRow } = props;
  const [scrollTop, setScrollTop] = useState(0);
  const height = Math.min(props.height, count * rowHeight);
  const overscan = 8;
  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan);
  const rows: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <li key={i} style={{ top: `${i * rowHeight}px`, height: `${rowHeight}px` }}>
        {renderRow(i)}
      </li>,
    );
  }
  return (
    <div
      class="virtual"
      style={{ height: `${height}px` }}
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
    >
      <ul
        class="virtual-inner"
        aria-label={props.label}
        style={{ height: `${count * rowHeight}px` }}
      >
        {rows}
      </ul>
    </div>
  );
}
