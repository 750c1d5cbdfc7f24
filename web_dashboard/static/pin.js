// The PIN form: a digit rule the browser would only call "Please match the requested
// format." is said in the page's own words (the input's data-invalid).
(function () {
  "use strict";
  document.querySelectorAll("input[data-invalid]").forEach((input) => {
    input.addEventListener("invalid", () => {
      if (input.validity.patternMismatch || input.validity.valueMissing) {
        input.setCustomValidity(input.dataset.invalid);
      }
    });
    input.addEventListener("input", () => input.setCustomValidity(""));
  });
})();
