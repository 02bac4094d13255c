// Forms in hosts that sandbox the app without allow-forms (the reference host grants only
// allow-scripts): there, submitting a form does nothing at all, not even fire a submit event, and
// pages written for a browser rely on that event. A click on a submit button (which is also what
// Enter in a field produces) becomes the submit event here, after the browser's constraint
// validation, and the native submission is cancelled in every host so that it never happens twice.
// Embedded in LLM-written pages; the builtin page glue runs from the button's click itself.
(function () {
  'use strict';
  document.addEventListener('click', function (e) {
    var b = e.target && e.target.closest ? e.target.closest('button, input[type=submit], input[type=image]') : null;
    var form = b && b.type !== 'button' && b.type !== 'reset' ? b.form : null;
    // A page handler that cancelled the click meant "do not submit".
    if (!form || b.disabled || e.defaultPrevented) return;
    e.preventDefault();
    if (!b.formNoValidate && !form.noValidate && !form.reportValidity()) return;
    form.dispatchEvent(new SubmitEvent('submit', { bubbles: true, cancelable: true, submitter: b }));
  });
})();
