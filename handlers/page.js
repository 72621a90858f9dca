(function () {
	var button = document.getElementById("copy");
	var input = document.getElementById("link");
	if (!button || !input) { return; }
	button.hidden = false;
	button.addEventListener("click", function () {
		function done() { button.textContent = "Copied"; }
		function fallback() { input.focus(); input.select(); try { document.execCommand("copy"); done(); } catch (e) {} }
		if (navigator.clipboard && window.isSecureContext) {
			navigator.clipboard.writeText(input.value).then(done, fallback);
		} else {
			fallback();
		}
	});
})();
