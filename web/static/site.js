// Small enhancements; every page reads and works without them.
"use strict";
(function () {
  // Copy buttons: <button class="copy" data-copy="ID" hidden> copies the text of #ID and says so.
  document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    var status = button.parentElement.querySelector(".copied");
    if (!source || !navigator.clipboard) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent).then(
        function () { status.textContent = "Copied to the clipboard."; },
        function () { status.textContent = "Could not copy: select the text and copy it yourself."; }
      );
    });
  });

  // Search and filter forms (GET): fields left empty are not sent, so the URL names only the choices made (the
  // server redirects an empty field away too; this saves the round trip).
  document.querySelectorAll("form[method=get]").forEach(function (form) {
    form.addEventListener("submit", function () {
      form.querySelectorAll("input[name], select[name]").forEach(function (field) {
        if (field.value.trim() === "") { field.disabled = true; }
      });
    });
  });
  window.addEventListener("pageshow", function () {  // back to a page kept in memory: its fields work again
    document.querySelectorAll("form[method=get] :disabled").forEach(function (field) { field.disabled = false; });
  });

  // Rank-range tooltips stay while hovered or focused; Escape hides the one showing (WCAG 1.4.13).
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && document.activeElement && document.activeElement.classList.contains("rk")) {
      document.activeElement.classList.add("tip-off");
    }
  });
  document.addEventListener("focusout", function (event) {
    if (event.target.classList && event.target.classList.contains("rk")) {
      event.target.classList.remove("tip-off");
    }
  });
})();
