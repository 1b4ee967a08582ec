#if HTTP
    /// The style sheet and the script of the pages, served from the binary: no build step, and
    /// nothing inline, so that the Content-Security-Policy can forbid inline script and style.
    enum Assets {
        static let css = """
            body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; }
            header { display: flex; justify-content: space-between; padding: 8px 16px; background: #f3f3f3; }
            main { padding: 8px 16px; }
            form.view { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 8px; }
            form.view label { display: flex; flex-direction: column; font-size: 12px; color: #555; }
            form.columns { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: center; margin-bottom: 8px; }
            form.columns label { font-size: 12px; }
            textarea { font: 13px/1.4 ui-monospace, monospace; }
            pre.error { background: #fff0f0; border: 1px solid #e0b4b4; padding: 8px; white-space: pre-wrap; }
            table { border-collapse: collapse; }
            th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
            td.number { text-align: right; }
            .null { color: #999; font-style: italic; }
            .blob, .key { color: #777; font-size: 12px; }
            main { display: flex; flex-direction: column; align-items: flex-start; }
            #facets { display: flex; flex-wrap: wrap; gap: 16px; order: 1; }
            #rows, #pages, .formats { order: 2; }
            .facet h3 { margin: 4px 0; font-size: 13px; }
            .facet ul { list-style: none; padding: 0; margin: 0; }
            .count { color: #777; }
            tr.changed { background: #fff6bf; transition: background 1s; }
            #live-indicator.live { color: #1a7f37; }
            #live-indicator.reconnecting { color: #b35900; }
            """

        /// Subscribes to the page's `.sse` form; on each value, fetches the page again and
        /// replaces its live parts (rows, count, facets), marking the rows that changed.
        static let javaScript = """
            "use strict";
            (function () {
              const source = document.body.dataset.liveSource;
              if (!source || !window.EventSource) return;
              const indicator = document.getElementById("live-indicator");
              function show(state) {
                indicator.hidden = false;
                indicator.className = state;
                indicator.textContent = state === "live" ? "● live" : "○ reconnecting…";
              }
              let latest = null;
              let refreshing = false;
              let again = false;
              async function refresh() {
                if (refreshing) { again = true; return; }
                refreshing = true;
                try {
                  const response = await fetch(location.href, { headers: { Accept: "text/html" } });
                  if (!response.ok) return;
                  const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
                  for (const part of fresh.querySelectorAll("[data-live]")) {
                    const current = document.getElementById(part.id);
                    if (!current) continue;
                    const before = new Map();
                    for (const row of current.querySelectorAll("[data-key]")) before.set(row.dataset.key, row.innerHTML);
                    const adopted = document.adoptNode(part);
                    current.replaceWith(adopted);
                    for (const row of adopted.querySelectorAll("tr[data-key]")) {
                      if (before.get(row.dataset.key) !== row.innerHTML) {
                        row.classList.add("changed");
                        setTimeout(() => row.classList.remove("changed"), 1500);
                      }
                    }
                  }
                  // How many updates the page took in: for scripts that wait for the next one.
                  document.body.dataset.liveUpdates = String(Number(document.body.dataset.liveUpdates || 0) + 1);
                } catch (error) {
                  show("reconnecting");
                } finally {
                  refreshing = false;
                  if (again) { again = false; refresh(); }
                }
              }
              const events = new EventSource(source);
              events.onopen = () => show("live");
              events.onerror = () => show("reconnecting");
              events.onmessage = (event) => {
                show("live");
                // The first value may be newer than the page, which was rendered before it.
                if (event.data !== latest) { latest = event.data; refresh(); }
              };
            })();
            """
    }
#endif
