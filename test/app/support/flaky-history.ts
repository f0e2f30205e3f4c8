import type { JobListing } from '../../../shared/domain/history/job-listing.js';
import type { HistoryStore } from '../../../shared/ports/history-store.js';

/** The real history store, counting the jobs-list rows it writes; its next writes can be made to fail. */
export class FlakyHistory implements HistoryStore {
  failures = 0;
  readonly rowsWritten: JobListing[] = [];
  constructor(private readonly real: HistoryStore) {}

  private write<T>(listing: JobListing | undefined, send: () => Promise<T>): Promise<T> {
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new Error('throttled'));
    }
    if (listing) this.rowsWritten.push(listing);
    return send();
  }
  append: HistoryStore['append'] = (jobId, entries, window, listing) => this.write(listing, () => this.real.append(jobId, entries, window, listing));
  putListing: HistoryStore['putListing'] = (listing) => this.write(listing, () => this.real.putListing(listing));
  read: HistoryStore['read'] = (jobId, limit) => this.real.read(jobId, limit);
  listJobs: HistoryStore['listJobs'] = (query) => this.real.listJobs(query);
}
