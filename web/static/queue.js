// The tablet's own record of what it has not yet handed to the server, in IndexedDB (which
// outlives reloads, closed tabs and a restarted tablet).
//
// Each entry is one submission exactly as it will be sent: a hand (POST .../hands), an undo
// (POST .../undo) or a confirmation of the settlement (POST .../confirm), with the
// idempotency key it was made with and the entry number (expected_seq) it expects to take,
// so the server's idempotency stores each exactly once however often it is sent. Entries
// are sent in the order they were made; one the server refuses (422) or that no longer fits
// (409: the game moved on meanwhile) stays, marked, until a person decides.
//
// The "views" store keeps the last state of each table the server answered with, so a
// reload without the server starts from the newest state this tablet knows.

const DB_NAME = "jantaku-tablet";
const VERSION = 1;
let opened = null;

function request(req) {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

export function open() {
  if (opened) { return opened; }
  opened = new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      const q = db.createObjectStore("queue", {keyPath: "id", autoIncrement: true});
      q.createIndex("table", "table_id");
      db.createObjectStore("views", {keyPath: "table_id"});
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  return opened;
}

async function store(name, mode) {
  const db = await open();
  return db.transaction(name, mode).objectStore(name);
}

async function done(name, mode, fn) {
  const db = await open();
  const tx = db.transaction(name, mode);
  const out = fn(tx.objectStore(name));
  await new Promise((resolve, reject) => {
    tx.oncomplete = resolve; tx.onerror = () => reject(tx.error); tx.onabort = () => reject(tx.error);
  });
  return out instanceof IDBRequest ? out.result : out;
}

/** Every entry of a table, oldest first. */
export async function list(tableId) {
  const s = await store("queue", "readonly");
  const rows = await request(s.index("table").getAll(tableId));
  return rows.sort((a, b) => a.id - b.id);
}

/** Keep a new entry (durably: resolves once the transaction has committed). */
export function add(entry) {
  return done("queue", "readwrite", (s) => s.add({created: Date.now(), status: "queued", ...entry}));
}

export function put(entry) { return done("queue", "readwrite", (s) => s.put(entry)); }

export function remove(id) { return done("queue", "readwrite", (s) => s.delete(id)); }

/** Remember the newest state the server gave for a table. */
export function saveView(view) { return done("views", "readwrite", (s) => s.put(view)); }

export async function loadView(tableId) {
  const s = await store("views", "readonly");
  return request(s.get(tableId));
}
