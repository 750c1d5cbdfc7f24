// The setup form: show as many name fields and dealer seats as there are players.
(function () {
  "use strict";
  const form = document.querySelector("form.setup");
  if (!form) return;
  function update() {
    const checked = form.querySelector("input[name=players]:checked");
    const n = checked ? Number(checked.value) : 2;
    form.querySelectorAll(".name-field").forEach((label, seat) => { label.hidden = seat >= n; });
    form.querySelectorAll("select[name=dealer] option").forEach((option) => {
      option.hidden = option.value !== "" && Number(option.value) >= n;
      if (option.hidden && option.selected) form.querySelector("select[name=dealer]").value = "";
    });
    // Briscola chiamata (5 players) has no face-up card: no swap variants.
    form.querySelectorAll("input[name=variants]").forEach((box) => {
      box.disabled = n === 5;
      if (n === 5) box.checked = false;
    });
  }
  // A known player's button fills the first empty name field shown (or is taken back
  // if that name is already in a field).
  form.querySelectorAll(".known-names button").forEach((button) => {
    button.addEventListener("click", () => {
      const fields = Array.from(form.querySelectorAll(".name-field"))
        .filter((label) => !label.hidden).map((label) => label.querySelector("input"));
      const same = fields.find((input) => input.value.trim() === button.dataset.name);
      if (same) { same.value = ""; return; }
      const empty = fields.find((input) => input.value.trim() === "");
      if (empty) empty.value = button.dataset.name;
    });
  });
  form.addEventListener("change", update);
  update();
})();
