"""Engine: one game as a LangGraph state machine. The state, a game's context (its models, its
seats, its judge), the nodes and graphs, the protocol's messages, replies screened for moves,
structured moves, paired arms, and the feedback sources of the critic."""
