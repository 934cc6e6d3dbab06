"""Whether Python code may write a file, read from its syntax tree."""

from __future__ import annotations

import pytest

from rein.steering.bash.commands._pywrites import may_write


@pytest.mark.parametrize(
    "code",
    [
        'print(open("x.sh").read())',
        'open("x.sh", "r")',
        'open("x.sh", mode="rb")',
        'print("File written to Path x.sh, see fs and shutil")',
        "# open('x', 'w')\nprint(1)",
        '"a-b".replace("-", "_")',
        'import webbrowser; webbrowser.open("http://example.com/wax")',
        'import pathlib; pathlib.Path("a").open()',
        "df.to_dict()",
        "import subprocess, sys; subprocess.Popen([sys.executable, 'service.py'])",
    ],
)
def test_code_that_writes_nothing(code: str) -> None:
    assert may_write(code) is False


@pytest.mark.parametrize(
    "code",
    [
        'open("x.sh", "w").write("x")',
        'open("x.sh", "a+")',
        'open("x.sh", mode="x")',
        'm = "w"; open("x.sh", m)',
        "open(**kw)",
        'import io; io.open("x", "wb")',
        'import os; os.open("x", os.O_CREAT)',
        'import os; os.replace("a", "b")',
        'import pathlib; pathlib.Path("x").write_text("y")',
        'pathlib.Path("x").open("w")',
        'import shutil; shutil.copy("a", "b")',
        "import json; json.dump(d, f)",
        'df.to_csv("out.csv")',
        'import tarfile; tarfile.open("a.tgz").extractall()',
        'import urllib.request as u; u.urlretrieve("http://x", "x.sh")',
        'import os; os.system("cat a > b")',
        "import subprocess; subprocess.run(line, shell=True)",
        "exec(code)",
    ],
)
def test_code_that_may_write(code: str) -> None:
    assert may_write(code) is True


def test_text_that_is_not_python_is_left_to_the_caller() -> None:
    assert may_write("this is not (python") is None
