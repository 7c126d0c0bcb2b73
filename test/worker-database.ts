/**
 * Run before each test file (jest's setupFiles): on PostgreSQL the file's tests use its worker's
 * own database, `<name>_w<JEST_WORKER_ID>`, a copy of the run's migrated one made by
 * global-setup.ts; the replicas' URLs naming that database name the worker's too (a streaming
 * replica has every database of its primary). Set by name, not appended: jest gives each file
 * its own copy of the environment, and this holds on one that already has it.
 */
const template = process.env.TEST_TEMPLATE_DATABASE;
const worker = process.env.JEST_WORKER_ID;
if (template && worker && process.env.DATABASE_URL) {
  const own = (url: string): string => {
    const u = new URL(url);
    if (decodeURIComponent(u.pathname.slice(1)) !== template) return url;
    u.pathname = `/${encodeURIComponent(`${template}_w${worker}`)}`;
    return u.toString();
  };
  process.env.DATABASE_URL = own(process.env.DATABASE_URL);
  if (process.env.DATABASE_REPLICA_URLS) {
    process.env.DATABASE_REPLICA_URLS = process.env.DATABASE_REPLICA_URLS.split(',').map((u) => own(u.trim())).join(',');
  }
}

export {};
