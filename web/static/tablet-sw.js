// The tablet's service worker (served as /tablet/sw.js, scope /tablet/).
//
// It keeps a copy of the tablet page and of every file the page needs (scripts, styles,
// and with the page the rules' price list), so that a reload while the club's box cannot
// be reached shows the table as this tablet last saw it, with its queue of unsent entries
// (kept by the page in IndexedDB, not here). Pages and files are fetched from the network
// first and the copy is the fallback: a tablet that can reach the server always shows the
// server's state. API requests are never answered from the copy.

const VERSION = new URL(self.location.href).searchParams.get("v") || "0";
const CACHE = "jantaku-tablet-" + VERSION;
const FILES = ["jantaku.css", "entry.js", "pricing.js", "queue.js", "tablet.js", "tablet.webmanifest"];
const NETWORK_MS = 4000;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(FILES.map((f) => "/static/" + f + "?v=" + VERSION).concat(FILES.map((f) => "/static/" + f)));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("jantaku-tablet-") && name !== CACHE) { await caches.delete(name); }
    }
    await self.clients.claim();
  })());
});

function withTimeout(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("timeout")), ms);
    promise.then((r) => { clearTimeout(timer); resolve(r); }, (e) => { clearTimeout(timer); reject(e); });
  });
}

async function networkFirst(request, key) {
  const cache = await caches.open(CACHE);
  try {
    const response = await withTimeout(fetch(request), NETWORK_MS);
    if (response.ok) { await cache.put(key || request, response.clone()); }
    return response;
  } catch (err) {
    const copy = await cache.match(key || request, {ignoreSearch: !key});
    if (copy) { return copy; }
    throw err;
  }
}

self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET") { return; }
  const url = new URL(req.url);
  if (url.origin !== self.location.origin) { return; }
  if (req.mode === "navigate" && url.pathname.startsWith("/tablet/") && url.pathname !== "/tablet/sw.js") {
    // one copy per table page, whatever the query (?lang=...)
    event.respondWith(networkFirst(req, url.origin + url.pathname));
  } else if (url.pathname.startsWith("/static/")) {
    event.respondWith(networkFirst(req));
  }
});
