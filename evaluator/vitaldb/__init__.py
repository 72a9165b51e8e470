"""The VitalDB intraoperative-hypotension pipeline (`vitaldb-ioh@0` and its synthetic demo twin).

Pure code: no SQL, no HTTP, no store. Modules, in the order data flows through them:
- `definition` — the spec's rules as one frozen `IohDefinition`;
- `cases` — the case table (`cases.csv`), its pinned (caseid, subjectid) hash, eligibility, the split;
- `signals` — `.vital` and CSV case files read into the 2-s grid;
- `windows` — window starts, the missing-data rule and labels, vectorised per case;
- `features` — last, mean, min and slope of each input window;
- `baselines` — `score_windows(model_name, train_features, train_labels, test_features)`;
- `pipeline` — what the harness calls: `iter_case_instances`, `collect_windows`, `baseline_predictions`;
- `check` — `check_data_dir(data_dir, spec)`: what differs between a directory and the spec;
- `listing` — the hash over a directory's files that a generated cohort's spec pins;
- `synthetic` — BenchToward's synthetic demo cohort (demo data, not VitalDB).
"""
