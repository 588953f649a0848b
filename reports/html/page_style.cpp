#include "reports/html/page_style.hpp"

#include <fmt/format.h>

#include "reports/html/markup.hpp"

namespace locksim {

std::string_view page_style() {
    return R"css(
:root { --ink: #1F2328; --faint: #8C959F; --faint-text: #5F6770; --line: #d0d7de; --violation: #D55E00; --protection: #009E73;
  --violation-text: #B04A00; --protection-text: #00775A; --fault: #6B4C9A; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); margin: 0; background: #fff; }
header, section, nav, footer { max-width: 1100px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 28px; }
h1 { font-size: 28px; margin: 4px 0 8px; }
h2 { font-size: 21px; margin: 0 0 6px; }
.chapter { color: var(--faint-text); text-transform: uppercase; letter-spacing: .06em; font-size: 13px; margin: 0; }
.lesson { font-size: 18px; font-weight: 600; border-left: 4px solid #0072B2; padding-left: 12px; }
.description { max-width: 78ch; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
table { border-collapse: collapse; margin: 8px 0 16px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.compare { font-size: 14px; }
div.strip svg { display: block; width: 100%; max-width: 900px; height: auto; font-family: system-ui, sans-serif; }
div.strip .tick, div.strip .holder { font-size: 10px; fill: var(--faint-text); }
div.strip .design-name { font-size: 12px; font-weight: 600; fill: var(--ink); }
ul.divergences { max-width: 90ch; }
table.compare caption { text-align: left; padding: 2px 0 6px; }
table.compare th, table.compare td { padding: 4px 6px; overflow-wrap: anywhere; }
@media (max-width: 900px) { table.compare { font-size: 12px; } table.compare th, table.compare td { padding: 3px 4px; } }
.bad { color: var(--violation-text); font-weight: 600; }
.good { color: var(--protection-text); font-weight: 600; }
.outcome { display: inline-block; border-radius: 4px; padding: 0 6px; font-weight: 600; }
.outcome-harmed { background: #fbe3d6; color: #8a3300; }
.outcome-harmed::before { content: "✗ "; }
.outcome-safe { background: #dcf1e8; color: #005c43; }
.outcome-safe::before { content: "✓ "; }
.outcome-idle { background: #ececec; color: #333333; }
.outcome-idle::before { content: "○ "; }
.drawn-run, .not-ruled-out { color: #424a53; }
table.rate-table { font-size: 14px; }
table.rate-table th, table.rate-table td { overflow-wrap: anywhere; }
ul.rate-commands code { overflow-wrap: anywhere; }
.contract { display: inline-block; border: 1px solid var(--line); border-radius: 4px; padding: 0 6px; color: #424a53; }
.contract-failed { border-color: var(--ink); color: var(--ink); font-weight: 700; }
.contract-failed::before { content: "≠ "; }
.designs { max-width: 1100px; margin: 0 auto; padding: 0 24px 24px; }
.design { border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin: 0 0 28px; }
.every-step { padding: 0 24px 24px; }
.story-note { color: #424a53; font-size: 14px; }
div.story { width: 100%; margin: 8px 0; }
div.story svg { display: block; width: 100%; height: auto; font-family: system-ui, sans-serif; }
svg.story-lanes { position: sticky; top: 0; z-index: 1; background: #fff; border-bottom: 1px solid var(--line); }
svg.story-lanes .lane-name { font-weight: 600; font-size: 9.5px; }
svg.story-lanes .time { fill: var(--faint-text); font-size: 10px; }
svg.figure.story .words { font-size: 12px; fill: var(--ink); }
svg.figure.story .step line { stroke-width: 1.3px; }
svg.figure.story .caption text { font-size: 12px; }
.design ul.violations { margin: 6px 0 10px; padding-left: 20px; }
.design ul.violations li, section ul.violations li { color: var(--violation-text); }
.design ul.protections li, section ul.protections li { color: var(--protection-text); }
.howto { color: #57606a; max-width: 90ch; }
svg.figure { display: block; font-family: system-ui, sans-serif; }
div.figure-frame { overflow: auto; max-height: calc(100vh - 24px); width: fit-content; max-width: 100%; border: 1px solid var(--line); border-radius: 6px; margin: 8px 0 16px; }
div.figure-frame > svg { display: block; }
svg.figure-lanes { position: sticky; top: 0; z-index: 1; background: #fff; border-bottom: 1px solid var(--line); font-family: system-ui, sans-serif; }
svg.figure-lanes .lane-name { font-weight: 600; font-size: 11px; }
svg.figure-lanes .time { fill: var(--faint-text); font-size: 11px; }
svg.figure .number { fill: var(--faint-text); font-size: 10px; font-family: ui-monospace, monospace; }
svg.figure .time { fill: #57606a; font-size: 11px; font-family: ui-monospace, monospace; }
svg.figure .label { font-size: 10.5px; font-family: ui-monospace, monospace; fill: #24292f; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg.figure .text { font-size: 12px; paint-order: stroke; stroke: #fff; stroke-width: 3px; fill: var(--ink); }
svg.figure .tone-violation, svg.figure .caption.tone-violation text { fill: var(--violation-text); font-weight: 700; }
svg.figure .tone-protection, svg.figure .caption.tone-protection text { fill: var(--protection-text); font-weight: 600; }
svg.figure .tone-fault { fill: var(--fault); }
svg.figure .caption text { font-size: 12.5px; }
svg.figure .break-label { font-size: 11px; fill: #57606a; font-style: italic; }
svg.figure .faded line, svg.figure .faded circle { opacity: .32; }
svg.figure .faded text, svg.figure .faded .tone-fault { fill: #6E7781; font-weight: 400; }
svg.figure a { cursor: pointer; }
svg.figure .step:target text, svg.figure .step:target line { stroke-width: 2.5; }
svg.legend { display: block; width: 100%; max-width: 820px; height: auto; }
svg.legend text { font-size: 12px; font-family: system-ui, sans-serif; fill: var(--ink); }
table.events { font-size: 13px; width: 100%; }
table.events td { overflow-wrap: anywhere; }
table.events td.num { white-space: nowrap; }
table.events tr:target { background: #fff8c5; }
table.events tr.faded td { color: #6E7781; }
table.events tr.violation td { color: var(--violation-text); font-weight: 600; }
table.events tr.protection td { color: var(--protection-text); }
.inert { background: #fff8c5; border: 1px solid #d4a72c; padding: 2px 12px; border-radius: 6px; margin: 8px 0; }
.banner { background: #fff8c5; border: 1px solid #d4a72c; padding: 6px 10px; border-radius: 6px; }
footer { color: var(--faint-text); font-size: 13px; padding-bottom: 32px; }
ol.course { padding-left: 0; list-style: none; }
nav.course-nav { margin: 8px 0; font-weight: 600; }
section.see-also ul { columns: 2; }
details.predict { margin: 4px 0; }
details.predict summary { cursor: pointer; font-weight: 600; }
details.predict p { margin: 4px 0 8px 18px; max-width: 90ch; }
ul.what-if li { margin: 6px 0; }
ul.what-if code { display: inline-block; background: #f6f8fa; padding: 2px 6px; border-radius: 4px; overflow-wrap: anywhere; }
ol.course li { margin: 6px 0; }
@media print { .design { break-inside: avoid; border: none; } a { color: inherit; text-decoration: none; } }
)css";
}

// A report is shared as a CI artifact and opened by whoever downloads it: it runs no
// script and loads nothing, its style and figures are in the page itself. Its text is
// escaped where it is written; the policy tells the browser the same, so that a mistake
// in escaping could still run nothing and fetch nothing (docs/reliability.md).
constexpr std::string_view content_security_policy =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

std::string page_head(std::string_view title, std::string_view own_style) {
    return fmt::format(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>{}</title>\n<style>{}{}</style>\n</head>\n<body>\n",
        content_security_policy, escaped(title), page_style(), own_style);
}

}  // namespace locksim
