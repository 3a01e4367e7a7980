// The camera page: the digits' region drawn over the camera's picture; staff drag its
// four corners (or the whole box) and save. The region is kept in the picture's own
// pixels, whatever size the picture is shown at.
(function () {
  "use strict";
  var view = document.getElementById("camera-view");
  if (!view) return;
  var svg = document.getElementById("camera-overlay");
  var field = document.getElementById("camera-region");
  var size = JSON.parse(view.dataset.size || "null") || [640, 480];
  var region = JSON.parse(view.dataset.region || "null");
  var W = size[0], H = size[1];
  if (!region) {     // nothing set yet: a box in the middle to start from
    region = [[W * 0.3, H * 0.35], [W * 0.7, H * 0.35], [W * 0.7, H * 0.65], [W * 0.3, H * 0.65]];
  }
  var NS = "http://www.w3.org/2000/svg";
  svg.setAttribute("viewBox", "0 0 " + W + " " + H);
  var poly = document.createElementNS(NS, "polygon");
  poly.setAttribute("class", "camera-box");
  poly.setAttribute("data-testid", "camera-box");
  svg.appendChild(poly);
  var handles = region.map(function (_, i) {
    var c = document.createElementNS(NS, "circle");
    c.setAttribute("r", Math.max(4, W / 80));
    c.setAttribute("class", "camera-corner");
    c.setAttribute("data-testid", "camera-corner-" + i);
    c.dataset.corner = String(i);
    svg.appendChild(c);
    return c;
  });
  function draw() {
    poly.setAttribute("points", region.map(function (p) { return p[0] + "," + p[1]; }).join(" "));
    handles.forEach(function (c, i) {
      c.setAttribute("cx", region[i][0]);
      c.setAttribute("cy", region[i][1]);
    });
    field.value = JSON.stringify(region.map(function (p) {
      return [Math.round(p[0] * 10) / 10, Math.round(p[1] * 10) / 10];
    }));
  }
  function at(e) {      // a pointer's place in the picture's pixels
    var r = svg.getBoundingClientRect();
    var x = (e.clientX - r.left) * W / r.width, y = (e.clientY - r.top) * H / r.height;
    return [Math.min(W, Math.max(0, x)), Math.min(H, Math.max(0, y))];
  }
  var drag = null;
  svg.addEventListener("pointerdown", function (e) {
    var t = e.target;
    if (t.dataset && t.dataset.corner !== undefined) {
      drag = {corner: Number(t.dataset.corner)};
    } else if (t === poly) {
      drag = {from: at(e), start: region.map(function (p) { return p.slice(); })};
    } else {
      return;
    }
    svg.setPointerCapture(e.pointerId);
    e.preventDefault();
  });
  svg.addEventListener("pointermove", function (e) {
    if (!drag) return;
    var p = at(e);
    if (drag.corner !== undefined) {
      region[drag.corner] = p;
    } else {
      var dx = p[0] - drag.from[0], dy = p[1] - drag.from[1];
      region = drag.start.map(function (q) { return [q[0] + dx, q[1] + dy]; });
    }
    draw();
  });
  function end() { drag = null; }
  svg.addEventListener("pointerup", end);
  svg.addEventListener("pointercancel", end);
  draw();
})();
