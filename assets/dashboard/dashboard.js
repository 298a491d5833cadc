// Progressive enhancement for the calsync dashboard, served as a file under the CSP (no inline
// script). Every page works without it: it only adds copy buttons and a busy state to Sync now
// and to the add-calendar form.

for (const button of document.querySelectorAll("button[data-copy]")) {
  const target = document.getElementById(button.dataset.copy);
  if (!target) continue;
  button.hidden = false;
  const label = button.textContent;
  button.addEventListener("click", async () => {
    const text = target.textContent.trim();
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = "Copied";
    } catch {
      // No clipboard access (an http:// address other than localhost): select it for Ctrl+C.
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.textContent = "Press Ctrl+C";
    }
    setTimeout(() => (button.textContent = label), 2000);
  });
}

// A sync or a feed preview can take a while (20 s per slow feed): say so, and keep a second click
// from queueing another. The form names its busy label in data-busy.
for (const form of document.querySelectorAll("form[data-busy]")) {
  form.addEventListener("submit", () => {
    const button = form.querySelector("button[type=submit]");
    if (!button) return;
    setTimeout(() => {
      button.disabled = true;
      button.textContent = form.dataset.busy;
    });
  });
}
