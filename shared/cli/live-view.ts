/**
 * Shows successive frames of a view: redrawn in place on a terminal; on a pipe or a file, a
 * frame's lines only when they changed (JSON lines with --json).
 */
export class LiveView {
  private drawnLines = 0;
  private lastFrame = '';

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly json: boolean,
  ) {}

  show(data: unknown, lines: string[]): void {
    if (this.json) {
      const frame = JSON.stringify(data);
      if (frame !== this.lastFrame) this.out.write(`${frame}\n`);
      this.lastFrame = frame;
      return;
    }
    if (this.out.isTTY) {
      // Up to the first line of the last frame, then clear to the end of the screen.
      if (this.drawnLines > 0) this.out.write(`\x1b[${this.drawnLines}F\x1b[J`);
      this.out.write(`${lines.join('\n')}\n`);
      this.drawnLines = lines.length;
      return;
    }
    // Time left changes every second; a plain log prints a frame when anything else changed.
    const frame = lines.map((line) => line.replace(/\s+\S+ left$|\s*deadline passed$/, '')).join('\n');
    if (frame !== this.lastFrame) this.out.write(`${new Date().toISOString()} ${lines.join('\n')}\n`);
    this.lastFrame = frame;
  }
}
