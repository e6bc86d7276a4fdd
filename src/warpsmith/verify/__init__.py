"""The verifier: the trusted side, cut by concept, and child/, the code that runs beside the
candidate.

  pipeline.py       verify(): the stages in order, from the static scan to the gates
  protocol.py       the doors between the trusted process and the candidate's: the job and the
  wire.py           frames (protocol), tensors as bytes (wire), GPU outputs by IPC handle (ipc,
  ipc.py            through the driver calls of cudadriver), the worker's last frame as a
  cudadriver.py     frozen record (worker_report)
  worker_report.py
  feedback.py       the verdict in words: its hints and the feedback a model reads (feedback),
  render.py         the text people and agents read (render)
  static/           the scan of the candidate's source, before any of it runs
  isolation/        the OS sandbox, the processes run in it, spares, the GPU lock
  checks/           whether the candidate computed the right thing
  timing/           how fast, on the trusted side's clock
  child/            what runs in the candidate's process (and the baselines'): decides nothing

Imports go one way: pipeline.py -> timing/ -> checks/ -> isolation/ and static/ -> the doors;
the doors, the words and static/ import nothing of the others. child/ imports, of the trusted
side, only protocol, wire, cudadriver, checks/inputs.py and timing/stopwatch.py, leaves that
both sides run alike; no module reads another's private name. tests/test_import_cycles.py
holds all of it. This file imports nothing.
"""
