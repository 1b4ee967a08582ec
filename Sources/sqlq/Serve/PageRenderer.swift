#if HTTP
    import SQLite

    /// The HTML of `serve`'s pages, rendered on the server: every value goes through
    /// ``HTMLEscaper``, and the pages hold no inline script or style (the Content-Security-Policy
    /// forbids them); `sqlq.js` makes them live, and without it they work as plain pages.
    enum PageRenderer {
        /// The path of a table's page, or of its form in `format` (`json`, `sse`…).
        static func tablePath(_ table: String, format: String? = nil) -> String {
            // A name with a dot could end like a format: `.html` keeps it the page.
            let suffix = format.map { "." + $0 } ?? (table.contains(".") ? ".html" : "")
            return "/" + QueryString.encode(table) + suffix
        }

        static func rowPath(_ table: String, _ rowID: String, format: String? = nil) -> String {
            "/" + QueryString.encode(table) + "/" + QueryString.encode(rowID) + (format.map { "." + $0 } ?? "")
        }

        // MARK: Pages

        static func databasePage(_ page: DatabasePage) -> String {
            var body =
                "<table id=\"tables\" data-live><thead><tr><th>table</th><th>type</th><th>rows</th></tr></thead><tbody>"
            for table in page.tables {
                body +=
                    "<tr data-key=\"\(e(table.name))\"><td><a href=\"\(e(tablePath(table.name)))\">\(e(table.name))</a></td>"
                body += "<td>\(e(table.type))</td><td class=\"number\">\(table.count.map(String.init) ?? "?")"
                if let error = table.error { body += " <span class=\"error\">\(e(error))</span>" }
                body += "</td></tr>"
            }
            body += "</tbody></table>"
            var refusal: [String] = []
            if page.openedReadOnly { refusal.append("the file is opened read-only") }
            if page.queryOnly { refusal.append("PRAGMA query_only is on") }
            body +=
                "<p id=\"read-only\">"
                + (refusal.isEmpty
                    ? "Writes are not refused by SQLite."
                    : "Read-only: " + refusal.joined(separator: ", and ") + " (as SQLite reports).")
                + " <a href=\"/-/database.json\">JSON</a></p>"
            return document(title: "Database", crumbs: [("database", nil)], live: "/-/database.sse", body: body)
        }

        /// A table's page; `tableColumns` are the table's own columns, which the column picker
        /// offers.
        static func tablePage(
            table: String, parameters: ViewParameters, request: TableViewRequest?, page: TablePage?, error: String?,
            searchable: Bool, tableColumns: [String]
        ) -> String {
            let start = tablePageStart(
                table: table, parameters: parameters, request: request, page: page, error: error,
                searchable: searchable, tableColumns: tableColumns)
            guard let page, let request else { return start + documentEnd }
            return start + tablePageEnd(table: table, parameters: parameters, request: request, page: page)
        }

        /// The table page up to its facets, which come last, so that the rows and the count are
        /// sent while the facets are counted (the style sheet shows the facets above the rows).
        static func tablePageStart(
            table: String, parameters: ViewParameters, request: TableViewRequest?, page: TablePage?, error: String?,
            searchable: Bool, tableColumns: [String]
        ) -> String {
            let path = tablePath(table)
            var body = filterForm(path: path, parameters: parameters, searchable: searchable)
            body += columnPicker(path: path, parameters: parameters, tableColumns: tableColumns)
            if let error { body += "<pre class=\"error\" id=\"error\">\(e(error))</pre>" }
            if let page, let request {
                if let count = page.count {
                    body += "<p id=\"count\" data-live>\(count) \(count == 1 ? "row matches" : "rows match")</p>"
                } else {
                    body += "<p id=\"count\" data-live>The matching rows were not counted (count=false).</p>"
                }
                body += rows(page, table: table, parameters: parameters, request: request)
                body += "<nav id=\"pages\" data-live>"
                if parameters.after != nil {
                    body += "<a href=\"\(e(path + parameters.query { $0.after = nil }))\">first page</a> "
                }
                if let next = page.next {
                    body += "<a href=\"\(e(path + parameters.query { $0.after = next }))\" rel=\"next\">next page</a>"
                }
                body += "</nav>"
                let query = parameters.query()
                body += "<p class=\"formats\">This view as "
                body += ["json", "ndjson", "csv"].map { format in
                    "<a href=\"\(e(tablePath(table, format: format) + query))\">\(format.uppercased())</a>"
                }.joined(separator: ", ")
                body += "</p>"
            }
            return documentStart(
                title: table, crumbs: [("database", "/"), (table, nil)],
                live: page == nil ? nil : tablePath(table, format: "sse") + parameters.query()) + body
        }

        /// The rest of the table page after ``tablePageStart(table:parameters:request:page:error:searchable:tableColumns:)``:
        /// the facets of `page`, and the end of the document.
        static func tablePageEnd(table: String, parameters: ViewParameters, request: TableViewRequest, page: TablePage)
            -> String
        {
            facets(page, table: table, parameters: parameters, request: request) + documentEnd
        }

        /// The end of a table page whose facets could not be counted: the reason, in their place.
        static func tablePageEnd(facetError: String) -> String {
            "<pre class=\"error\" id=\"facets\">the facets could not be counted: \(e(facetError))</pre>" + documentEnd
        }

        static func rowPage(_ page: RowPage, request: RowRequest) -> String {
            let rowID = String(page.rowID)
            var body = "<table id=\"row\" data-live><tbody>"
            if let row = page.row {
                for (index, column) in page.columns.enumerated() {
                    let key = request.foreignKeys.first { $0.column.sqliteNameMatches(column) }
                    body += "<tr data-key=\"\(e(column))\"><th>\(e(column))</th>"
                    let shown =
                        page.invalidText[index].map(HTMLEscaper.escape(bytes:))
                        ?? cell(row[index], foreignKey: key, labels: page.labels[column])
                    body += "<td>\(shown)</td></tr>"
                }
            } else {
                body += "<tr><td>No row of \(e(page.table)) has rowid \(rowID).</td></tr>"
            }
            body += "</tbody></table><section id=\"referrers\" data-live><h2>Rows that refer to this one</h2><ul>"
            if page.referrers.isEmpty { body += "<li>none</li>" }
            for referrer in page.referrers {
                let filter = FilterSnippet.equals(referrer.column, referrer.value) ?? ""
                let link = tablePath(referrer.table) + ViewParameters().query { $0.filters = [filter] }
                body += "<li><a href=\"\(e(link))\">\(referrer.count) \(referrer.count == 1 ? "row" : "rows") of "
                body += "\(e(referrer.table))</a> through \(e(referrer.column))</li>"
            }
            body += "</ul></section>"
            body +=
                "<p class=\"formats\">This row as <a href=\"\(e(rowPath(page.table, rowID, format: "json")))\">JSON</a></p>"
            return document(
                title: "\(page.table) \(rowID)",
                crumbs: [("database", "/"), (page.table, tablePath(page.table)), (rowID, nil)],
                live: rowPath(page.table, rowID, format: "sse"), body: body)
        }

        /// `--allow-sql`'s page: the form, then the statement's rows or its error.
        static func sqlPage(sql: String, result: SQLResult?, error: String?) -> String {
            var body = "<form method=\"get\" action=\"/-/sql\" id=\"sql\"><label>one read-only statement "
            body += "<textarea name=\"sql\" rows=\"6\" cols=\"80\">\(e(sql))</textarea></label>"
            body += "<button type=\"submit\">Run</button></form>"
            if let error { body += "<pre class=\"error\" id=\"error\">\(e(error))</pre>" }
            if let result {
                let count = result.rows.count
                body += "<p id=\"count\">\(result.more ? "the first " : "")\(count) \(count == 1 ? "row" : "rows")</p>"
                body += "<table id=\"rows\"><thead><tr>"
                body += result.columns.map { "<th>\(e($0))</th>" }.joined()
                body += "</tr></thead><tbody>"
                for row in result.rows {
                    body += "<tr>" + row.map { "<td>\(cell($0, foreignKey: nil, labels: nil))</td>" }.joined() + "</tr>"
                }
                body += "</tbody></table>"
                body +=
                    "<p class=\"formats\">These rows as <a href=\"\(e("/-/sql.json?sql=" + QueryString.encode(sql)))\">JSON</a></p>"
            }
            return document(title: "SQL", crumbs: [("database", "/"), ("SQL", nil)], live: nil, body: body)
        }

        static func errorPage(_ error: ServeError) -> String {
            document(
                title: "Error", crumbs: [("database", "/")], live: nil,
                body: "<pre class=\"error\" id=\"error\">\(e(error.message))</pre>")
        }

        // MARK: Parts

        private static func document(title: String, crumbs: [(String, String?)], live: String?, body: String) -> String
        {
            documentStart(title: title, crumbs: crumbs, live: live) + body + documentEnd
        }

        private static func documentStart(title: String, crumbs: [(String, String?)], live: String?) -> String {
            var html = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            html += "<title>\(e(title)) · sqlq</title>"
            html += "<link rel=\"stylesheet\" href=\"/-/sqlq.css\"><script src=\"/-/sqlq.js\" defer></script></head>"
            html += live.map { "<body data-live-source=\"\(e($0))\">" } ?? "<body>"
            html += "<header><nav>"
            html += crumbs.map { name, link in
                link.map { "<a href=\"\(e($0))\">\(e(name))</a>" } ?? "<strong>\(e(name))</strong>"
            }.joined(separator: " / ")
            html += "</nav><span id=\"live-indicator\" hidden></span></header><main>"
            return html
        }

        private static let documentEnd = "</main></body></html>\n"

        private static func filterForm(path: String, parameters: ViewParameters, searchable: Bool) -> String {
            var form = "<form method=\"get\" action=\"\(e(path))\" class=\"view\">"
            for filter in parameters.filters.isEmpty ? [""] : parameters.filters {
                form += "<label>where <input name=\"where\" size=\"50\" value=\"\(e(filter))\"></label>"
            }
            if searchable {
                form += "<label>search <input name=\"search\" value=\"\(e(parameters.search ?? ""))\"></label>"
            }
            form +=
                "<label>sort <input name=\"sort\" value=\"\(e(parameters.sort.joined(separator: ",")))\" placeholder=\"-due,id\"></label>"
            form +=
                "<label>columns <input name=\"columns\" value=\"\(e(parameters.columns.joined(separator: ",")))\" placeholder=\"all\"></label>"
            for facet in parameters.facets { form += "<input type=\"hidden\" name=\"facet\" value=\"\(e(facet))\">" }
            form += "<label>add a facet <input name=\"facet\" placeholder=\"column\"></label>"
            if parameters.size != ViewParameters.defaultSize {
                form += "<input type=\"hidden\" name=\"size\" value=\"\(parameters.size)\">"
            }
            if !parameters.count { form += "<input type=\"hidden\" name=\"count\" value=\"false\">" }
            return form + "<button type=\"submit\">Apply</button></form>"
        }

        /// The column picker: a checkbox per column, checked when shown, and the rest of the view
        /// as hidden inputs, so that a plain GET, without script, gives `columns=` a term per
        /// checked box. The columns shown come first, in their order; then the table's others.
        private static func columnPicker(path: String, parameters: ViewParameters, tableColumns: [String]) -> String {
            var form = "<form method=\"get\" action=\"\(e(path))\" id=\"columns\" class=\"columns\">"
            func hidden(_ name: String, _ value: String) {
                form += "<input type=\"hidden\" name=\"\(name)\" value=\"\(e(value))\">"
            }
            for filter in parameters.filters { hidden("where", filter) }
            if let search = parameters.search { hidden("search", search) }
            for sort in parameters.sort { hidden("sort", sort) }
            for facet in parameters.facets { hidden("facet", facet) }
            if parameters.size != ViewParameters.defaultSize { hidden("size", String(parameters.size)) }
            if !parameters.count { hidden("count", "false") }
            let shown = parameters.columns.flatMap { QueryOptions.terms($0).map(\.0) }.filter { !$0.isEmpty }
            var boxes: [(term: String, name: String, checked: Bool)] = shown.map { ($0, unquoted($0), true) }
            for column in tableColumns where !boxes.contains(where: { $0.name.sqliteNameMatches(column) }) {
                boxes.append((columnTerm(column), column, shown.isEmpty))
            }
            for box in boxes {
                form += "<label><input type=\"checkbox\" name=\"columns\" value=\"\(e(box.term))\""
                form += "\(box.checked ? " checked" : "")> \(e(box.name))</label>"
            }
            return form + "<button type=\"submit\">Show these columns</button></form>"
        }

        private static func facets(
            _ page: TablePage, table: String, parameters: ViewParameters, request: TableViewRequest
        ) -> String {
            var html = "<section id=\"facets\" data-live>"
            for facet in page.facets {
                html += "<div class=\"facet\" data-key=\"\(e(facet.column))\"><h3>\(e(facet.column))</h3><ul>"
                let labels = page.labels.first { $0.key.sqliteNameMatches(facet.column) }?.value
                for value in facet.values {
                    let text = e(value.value == .null ? "null" : value.value.cellText)
                    // A foreign key's value shows as its parent's label, the key after it.
                    let labelled = (value.value == .null ? nil : labels?[value.value.cellText]).map {
                        (" class=\"label\">" + e($0), " <span class=\"key\">\(text)</span>")
                    }
                    let (shown, key) = labelled ?? (">" + text, "")
                    if let condition = FilterSnippet.equals(
                        facet.column, value.value, holdsNumbers: request.numberFacets.contains(facet.column))
                    {
                        let link =
                            tablePath(table)
                            + parameters.query {
                                $0.filters = FilterSnippet.adding(condition, to: $0.filters)
                                $0.after = nil
                            }
                        html +=
                            "<li><a href=\"\(e(link))\"\(shown)</a>\(key) <span class=\"count\">\(value.count)</span></li>"
                    } else {
                        html += "<li><span\(shown)</span>\(key) <span class=\"count\">\(value.count)</span></li>"
                    }
                }
                if facet.hasMore { html += "<li class=\"more\">…</li>" }
                html += "</ul></div>"
            }
            return html + "</section>"
        }

        private static func rows(
            _ page: TablePage, table: String, parameters: ViewParameters, request: TableViewRequest
        ) -> String {
            let path = tablePath(table)
            var html = "<table id=\"rows\" data-live><thead><tr>"
            for column in page.columns {
                let sorted = parameters.sort.count == 1 && parameters.sort[0] == sortTerm(column)
                let term = sorted ? "-" + sortTerm(column) : sortTerm(column)
                let link =
                    path
                    + parameters.query {
                        $0.sort = [term]
                        $0.after = nil
                    }
                let arrow =
                    sorted
                    ? " ▲" : parameters.sort.count == 1 && parameters.sort[0] == "-" + sortTerm(column) ? " ▼" : ""
                html += "<th><a href=\"\(e(link))\">\(e(column))</a>\(arrow)</th>"
            }
            html += "</tr></thead><tbody>"
            let rowIDIndex = request.rowIDColumn.flatMap { key in page.columns.firstIndex { $0.sqliteNameMatches(key) }
            }
            let offset = request.offset
            for (number, row) in page.rows.enumerated() {
                let key = rowIDIndex.map { row[$0].cellText } ?? String(offset + number)
                html += "<tr data-key=\"\(e(key))\">"
                for (index, value) in row.enumerated() {
                    if index == rowIDIndex, case .integer(let rowID) = value {
                        html += "<td><a href=\"\(e(rowPath(table, String(rowID))))\">\(rowID)</a></td>"
                        continue
                    }
                    if let bytes = page.invalidText[number]?[index] {
                        html += "<td>\(HTMLEscaper.escape(bytes: bytes))</td>"
                        continue
                    }
                    let column = page.columns[index]
                    let foreignKey = request.foreignKeys.first { $0.column.sqliteNameMatches(column) }
                    html += "<td>\(cell(value, foreignKey: foreignKey, labels: page.labels[column]))</td>"
                }
                html += "</tr>"
            }
            return html + "</tbody></table>"
        }

        /// The term of `sort=` for a column: quoted when its name holds what the option splits on.
        private static func sortTerm(_ column: String) -> String {
            // Bytes, not characters: a quote or a comma followed by a combining mark is one
            // `Character`, which the option's reader, reading scalars, still splits on.
            let plain =
                !column.isEmpty && !column.utf8.contains(UInt8(ascii: ",")) && !column.utf8.contains(UInt8(ascii: "\""))
                && column.utf8.first != UInt8(ascii: "-") && column.utf8.first != UInt8(ascii: "+")
                && column.trimmingSpaces == column
            return plain ? column : String.quotedIdentifier(column)
        }

        /// The term of `columns=` for a table's column: quoted when its name holds what the
        /// option splits or follows on.
        private static func columnTerm(_ column: String) -> String {
            column.utf8.contains(UInt8(ascii: ".")) ? String.quotedIdentifier(column) : sortTerm(column)
        }

        /// A term's name: a quoted one without its quotes.
        private static func unquoted(_ term: String) -> String {
            guard term.count >= 2, term.first == "\"", term.last == "\"" else { return term }
            return String(term.dropFirst().dropLast()).replacing("\"\"", with: "\"")
        }

        /// A value in a cell: null and blobs marked as such, a foreign key as its parent's label
        /// linking to the parent row.
        private static func cell(_ value: DatabaseValue, foreignKey: ForeignKeyLabel?, labels: [String: String]?)
            -> String
        {
            switch value {
            case .null: return "<span class=\"null\">null</span>"
            case .blob(let bytes): return "<span class=\"blob\">\(bytes.count)-byte blob</span>"
            default: break
            }
            let text = e(value.cellText)
            guard let foreignKey else { return text }
            let link =
                foreignKey.keyIsRowID
                ? rowPath(foreignKey.parent, value.cellText)
                : tablePath(foreignKey.parent)
                    + ViewParameters().query { $0.filters = [FilterSnippet.equals(foreignKey.key, value) ?? ""] }
            guard let label = labels?[value.cellText] else { return "<a href=\"\(e(link))\">\(text)</a>" }
            return "<a href=\"\(e(link))\" class=\"label\">\(e(label))</a> <span class=\"key\">\(text)</span>"
        }

        private static func e(_ text: String) -> String { HTMLEscaper.escape(text) }
    }

    extension String {
        fileprivate var trimmingSpaces: String {
            var text = Substring(self)
            while text.first == " " { text.removeFirst() }
            while text.last == " " { text.removeLast() }
            return String(text)
        }
    }
#endif
