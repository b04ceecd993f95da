"""The report as a document a customer can read alone: its sections, in order.

:func:`compose` turns what :func:`flashpoc.phases.build_report` computed (a
:class:`flashpoc.phases.Report`) and what the campaign recorded (manifest.json, check.csv,
probe.json) into sections of text, tables (:class:`flashpoc.core.tables.Table`) and charts. The
same sections make report.html (and its PDF) and what notebook 04 shows
(:meth:`flashpoc.phases.Report.show`), so both read the same:

1. Executive summary: the answers first (a sentence per workload or comparison, the saturation
   probe's answer and the hosts-or-array verdict once), what was tested, the results table with
   its caveats.
2. Test conditions: date, engine and version, hosts, targets and sizes, point length and
   warm-up, the working set against the array's cache.
3. Method: how each number is measured and read.
4. Comparison (when campaigns are compared).
5. Results: latency against load, percentiles, CPU and load hosts, steady state, latency
   distribution, the saturation probe; repeats and intervals.
6. Appendix: every point, the files, a glossary.
"""

from __future__ import annotations

from flashpoc.present import summary

# Every name keeps its old path (flashpoc.present.document.X): the package re-exports its modules' names.
from flashpoc.present.document.back import (CHART_PURPOSES, FILE_PURPOSES, GLOSSARY, LEADS, comparison, files_table, glossary, method,
                   precondition_items, precondition_section, results)
from flashpoc.present.document.base import Context, DocSection
from flashpoc.present.document.repeats import repeats_section
from flashpoc.present.document.views import job_sections
from flashpoc.present.document.front import (_cache_verdict, _ranges, _recorded_version, _runtime_text, _size_text, conditions, engine_text,
                    executive_summary, fill_text, headline, hosts_table, interval_text, key_results, measured_when,
                    point_length_text, probe_sentence, targets_table, targets_text, tested_text, title_lines,
                    verdict_lines, working_set_text, workloads_table)


def compose(report, context: Context) -> list[DocSection]:
    """The report's sections, in reading order (see the module's docstring).

    Args:
        report: a :class:`flashpoc.phases.Report` (its charts, tables and campaign).
        context: what the campaign recorded (:class:`Context`).
    """
    sections = [DocSection("summary", "Executive summary", executive_summary(report, context)),
                DocSection("conditions", "Test conditions", conditions(report, context)),
                DocSection("method", "Method", method(report))]
    if report.configs:
        sections.append(DocSection("comparison", "Comparison of the configurations", comparison(report)))
    sections += results(report, context)
    sections += repeats_section(report, context)  # how sure the answers are: repeats and intervals
    sections += job_sections(report.cfg, context)  # a campaign's jobs (sql_workload's runs), if any
    sections += [DocSection("appendix", "Appendix A: every point", [
                     "Every measured point of the sweep, in the order of the workloads and their threads. "
                     "`points.csv` has every column of every point, under its machine name.",
                     summary.points_display(report.measured),
                     *report.cfg.engine_object.point_tables(report.measured)]),
                 DocSection("appendix", "Appendix B: files", [
                     "Paths are relative to the campaign's folder (`results/<campaign>/`).",
                     files_table(report, context)]),
                 DocSection("appendix", "Appendix C: glossary", [glossary(report.cfg.engine_object.glossary)])]
    return [s for s in sections if s.items]
