"""rein inside Python agent frameworks: `Guard` holds the engines for one agent run (steering for tool
calls, stream rules for the model's output, the timebox), and `rein.integrations.<framework>` maps a
framework's own hooks onto it. Each framework module imports its framework, behind its optional extra
(`pip install 'rein[pydantic-ai]'`); this package imports none."""

from rein.integrations._guard import BudgetSignal, Cut, Guard, ToolDecision, Watch
from rein.integrations._tools import arguments_of, steering_call

__all__ = ["BudgetSignal", "Cut", "Guard", "ToolDecision", "Watch", "arguments_of", "steering_call"]
