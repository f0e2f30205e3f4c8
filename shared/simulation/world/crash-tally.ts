/** Crashes counted by point (`before write 2`) and route (`fire-timer`): which crash points a run reached. */
export class CrashTally {
  private readonly counts = new Map<string, Map<string, number>>();

  count(point: string, route: string, times = 1): void {
    let routes = this.counts.get(point);
    if (!routes) this.counts.set(point, (routes = new Map()));
    routes.set(route, (routes.get(route) ?? 0) + times);
  }

  add(other: CrashTally): void {
    for (const [point, routes] of other.counts) for (const [route, times] of routes) this.count(point, route, times);
  }

  /** Crashes at `point`, of one route or of all. */
  at(point: string, route?: string): number {
    const routes = this.counts.get(point);
    if (!routes) return 0;
    return route === undefined ? [...routes.values()].reduce((a, b) => a + b, 0) : (routes.get(route) ?? 0);
  }

  get total(): number {
    return [...this.counts.keys()].reduce((sum, point) => sum + this.at(point), 0);
  }

  /** `before write 1: 40, after write 1: 38, …, at the effects: 51`, the write points in order. */
  describe(): string {
    const order = (point: string) => [Number(/\d+/.exec(point)?.[0] ?? Infinity), point.startsWith('before') ? 0 : 1] as const;
    const points = [...this.counts.keys()].sort((a, b) => order(a)[0] - order(b)[0] || order(a)[1] - order(b)[1]);
    return points.map((point) => `${point}: ${this.at(point)}`).join(', ') || 'none';
  }
}
