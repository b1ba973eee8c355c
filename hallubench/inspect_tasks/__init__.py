"""Every hallubench benchmark as an Inspect AI task (``inspect eval hallubench/<task>``), one per lm-eval task name of
the registry. The tasks layer beside ``lm_eval_tasks``: the same data loader, prompt (``doc_to_text``), run settings
(``RunSettings``) and judging chain (``Benchmark.judge_item`` through one ``JudgeSet``) as the lm-eval tasks, with
hallubench's metrics as Inspect metrics. ``hallubench.inspect_tasks.tasks`` registers the tasks (the package's
``inspect_ai`` entry point); this module imports nothing, so reading a log needs only the names below."""

RECORD_KEY = "hallubench_record"  # a score's metadata key holding the judged record (with the run's settings)
SETTINGS_KEY = "hallubench_settings"  # task metadata: the resolved settings, as recorded
DATASET_KEY = "hallubench_dataset"  # task metadata: where the set came from and its fingerprint
