"""Stateful property-based fuzzing of WorldDB's reconciler and memory invariants.

    fuzz.model        the reference model: plain dicts, predicted graph writes, an undo journal
    fuzz.harness      one engine on a real file beside the model; graph-layer operations; judging
    fuzz.memory_ops   memory-layer operations: predicted refusals, learned rows, predicted validity
    fuzz.oracles      the invariants checked after every operation
    fuzz.machine      the Hypothesis RuleBasedStateMachine; run() and replay()
    fuzz.mcp_fuzz     random and malformed arguments for the nine MCP tools
    fuzz.regressions  saved failing examples (fuzz/regressions/*.json)

Fast profile: `pytest fuzz`. Long profile: `python -m fuzz --examples N --seed S`. See fuzz/README.md.
"""
