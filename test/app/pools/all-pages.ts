/** Follows `nextCursor` until the last page (bounded: a cursor that never ends fails the test). */
export async function allPages<T>(read: (cursor: string | undefined) => Promise<T & { nextCursor?: string }>): Promise<T[]> {
  const pages: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await read(cursor);
    pages.push(page);
    cursor = page.nextCursor;
    if (cursor === undefined) return pages;
  }
  throw new Error('the cursor never ended');
}
