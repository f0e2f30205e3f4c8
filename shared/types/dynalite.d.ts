declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    /** Directory for on-disk LevelDB persistence; in memory when absent. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}
