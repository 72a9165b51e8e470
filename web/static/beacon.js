// Tells the server, once, that a real browser opened this page: only these beacons count as visits.
// It sends the page's path and nothing else (no cookie, no identifier); see /privacy.
"use strict";
(function () {
  var path = window.location.pathname;
  if (navigator.sendBeacon && navigator.sendBeacon("/v1/beacon", path)) {
    return;
  }
  if (window.fetch) {
    window.fetch("/v1/beacon", { method: "POST", body: path, keepalive: true, credentials: "omit" });
  }
})();
