"""`kube-delete-beyond-pods`: what a `kubectl delete` removes, read with kubectl's own option grammar."""

from __future__ import annotations

import pytest

from rein.steering._pack_tests_clusters import kube_delete_beyond_pods
from rein.steering.bash import UNKNOWN, CommandRef
from tests.steering.bash.helpers import run
from tests.steering.conftest import make_context


def _last(line: str) -> CommandRef:
    """The last command the line runs (the one after `xargs`, `$(...)` or an assignment)."""
    return run(line).refs[-1]


def _answer(line: str) -> object:
    return kube_delete_beyond_pods(_last(line), make_context())


@pytest.mark.parametrize(
    "line",
    [
        "kubectl delete pod web-1",
        "kubectl delete pods web-1 web-2",
        "kubectl delete po/web-1 pod/web-2",
        "kubectl delete Pod web-1",
        "kubectl -n prod delete pod web-1",
        "kubectl delete -n prod pod web-1 --grace-period 0 --force",
        "kubectl --context=$CTX delete pod web-1 -n $NS",
        "kubectl -v=6 delete pod web-1 -o name",
        "kubectl delete pod web-$N",
        "kubectl delete pod/$POD",
        "kubectl delete pods",
        "kubectl get ns -A",
        "kubectl apply -f k8s/",
        "kubectl logs -f web-1",
        "kubectl",
    ],
)
def test_pods_named_one_by_one_and_other_verbs_are_not(line: str) -> None:
    assert _answer(line) is False


@pytest.mark.parametrize(
    "line",
    [
        "kubectl delete ns staging",
        "kubectl -n prod delete deploy web",
        "kubectl delete -n prod statefulset postgres",
        "kubectl delete pod,svc web",
        "kubectl delete pod/web-1 deploy/web",
        "kubectl delete pod --all",
        "kubectl delete pods -A",
        "kubectl delete pod -l app=web",
        "kubectl delete pod -lapp=web",
        "kubectl delete pod --selector=app=web",
        "kubectl delete pod --field-selector status.phase=Failed",
        "kubectl delete -f deploy.yaml",
        "kubectl delete -fdeploy.yaml",
        "kubectl delete -k overlays/prod",
        "kubectl delete --raw /api/v1/namespaces/x",
        "kubectl -- delete ns staging",
        "oc delete project staging",
        "kubectl delete ns $NS",
    ],
)
def test_other_kinds_and_objects_picked_by_anything_but_their_names_are(line: str) -> None:
    assert _answer(line) is True


@pytest.mark.parametrize(
    "line",
    [
        "kubectl delete pod $POD",
        "kubectl delete pod web-1 $EXTRA",
        "kubectl delete $KIND web",
        "kubectl delete $KIND/web",
        "kubectl delete pod web-1 --$OPTION",
        "kubectl $VERB ns staging",
        "kubectl $ARGS get pods",
        "kubectl delete $(kubectl get pods -o name)",
        "kubectl get pods -o name | xargs kubectl delete",
        "kubectl get pods -o name | xargs kubectl delete pod",
    ],
)
def test_a_word_rein_cannot_read_that_could_decide_makes_it_unknown(line: str) -> None:
    assert _answer(line) is UNKNOWN
