"""The parts of `AgentSession`, one module per role.

    _host.py      ExtensionHost: the extensions' registry, the runner that calls their handlers, and
                  the session's notices (to listeners at once, to handlers in the background)
    _view.py      BranchView: the extensions' view of the session, the active branch cached per leaf
    _drive.py     Driver: the loop driver, one run of the agent loop with its config, queues and signal
    _persist.py   record / raise_write_error: the event persister, what the loop's events write

`rein.session._agent_session.AgentSession` joins them; nothing here is public.
"""
