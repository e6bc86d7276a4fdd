"""How fast the candidate is, on the trusted side's clock: the baselines' process and the
interleaved blocks (baselines, baseline_process), one call's stopwatch, the verdict's timing
(summary) and its plausibility gates. Of verify/ it imports the doors, isolation/ and checks/;
stopwatch.py, which the candidate's process loads too, none of them."""
