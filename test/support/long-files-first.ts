import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files known to run far longer than their size suggests: each seeds half runs 500 simulated seeds
 * from a few lines, each mutant runs up to 300, the size and page properties write the largest
 * items the API takes. On a fresh clone vitest has no durations yet and starts the largest files
 * first, so these started last and ran alone at the end of their group while the other core sat idle.
 */
const LONG_RUNNING = [
  /test\/sim\/seeds-\d+-\d+\.test\.ts$/,
  /test\/sim\/mutants\.test\.ts$/,
  /test\/app\/pools\/pool-item-size\.property\.test\.ts$/,
  /test\/app\/job-answer-pages\.test\.ts$/,
];

/** Vitest's own order (groups, then durations from its cache, else size), with the long runners of each group first, in the order listed (longest first). */
export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const group = (file: TestSpecification) => file.project.config.sequence.groupOrder;
    const long = (file: TestSpecification) => {
      const rank = LONG_RUNNING.findIndex((pattern) => pattern.test(file.moduleId));
      return rank === -1 ? LONG_RUNNING.length : rank;
    };
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => group(a.file) - group(b.file) || long(a.file) - long(b.file) || a.index - b.index)
      .map(({ file }) => file);
  }
}
