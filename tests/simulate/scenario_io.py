"""Reading scenario files, shared by the kuota simulate tests here: a YAML
loader that keeps timestamps as written, and the scenario files under paths."""
import os

import yaml


class Loader(yaml.SafeLoader):
    """SafeLoader that keeps timestamps as the strings they were written as."""


Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def scenario_files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in sorted(os.walk(p)):
                for f in sorted(files):
                    if f.endswith((".yaml", ".yml")):
                        yield os.path.join(root, f)
        else:
            yield p
