#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a CITATION.cff against the rules of the Citation File Format
1.2.0 (what GitHub's "Cite this repository" and Zenodo read): the
required keys, no key the format does not define, each value of the type
the format gives it, authors as persons or entities.

    python3 tests/cffcheck.py CITATION.cff [--version V]

Prints one line per problem and exits 1, or exits 0 silently.  With
--version, the file's version must be V.  Needs PyYAML (Debian:
python3-yaml)."""
import datetime
import re
import sys

import yaml

TOP = {
    "abstract": "text", "authors": "people", "cff-version": "text",
    "commit": "text", "contact": "people", "date-released": "date",
    "doi": "doi", "identifiers": "list", "keywords": "texts",
    "license": "license", "license-url": "url", "message": "text",
    "preferred-citation": "dict", "references": "list",
    "repository": "url", "repository-artifact": "url",
    "repository-code": "url", "title": "text", "type": "type",
    "url": "url", "version": "version",
}
REQUIRED = ("authors", "cff-version", "message", "title")
PERSON = {"address", "affiliation", "alias", "city", "country", "email",
          "family-names", "fax", "given-names", "name-particle",
          "name-suffix", "orcid", "post-code", "region", "tel", "website"}
ENTITY = {"address", "alias", "city", "country", "date-end", "date-start",
          "email", "fax", "location", "name", "orcid", "post-code",
          "region", "tel", "website"}
# the SPDX identifiers a project like this one would use; the format
# takes any of the SPDX list, and this checker names what it does not know
SPDX = {"MIT", "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "GPL-2.0-only",
        "GPL-2.0-or-later", "GPL-3.0-only", "GPL-3.0-or-later", "ISC",
        "LGPL-2.1-or-later", "LGPL-3.0-or-later", "MPL-2.0", "Unlicense",
        "CC0-1.0", "CC-BY-4.0"}


def text(v):
    return isinstance(v, str) and len(v) >= 1


def check_person(p, where, problems):
    if not isinstance(p, dict) or not p:
        problems.append("%s: a person or an entity is a mapping" % where)
        return
    keys = set(p)
    if "name" in keys:         # an entity
        bad = keys - ENTITY
        kind = "entity"
    else:
        bad = keys - PERSON
        kind = "person"
        if not keys & {"family-names", "given-names", "alias"}:
            problems.append("%s: a person needs family-names, given-names "
                            "or an alias (or an entity a name)" % where)
    article = "an" if kind == "entity" else "a"
    for k in sorted(bad):
        problems.append("%s: %s is not a key of %s %s"
                        % (where, k, article, kind))
    for k, v in p.items():
        if k in ("date-start", "date-end"):
            if not isinstance(v, datetime.date):
                problems.append("%s: %s is not a date" % (where, k))
        elif k == "orcid":
            if not (isinstance(v, str) and re.match(
                    r"^https://orcid\.org/[0-9]{4}-[0-9]{4}-[0-9]{4}-"
                    r"[0-9]{3}[0-9X]$", v)):
                problems.append("%s: orcid is not an ORCID URL" % where)
        elif not text(v):
            problems.append("%s: %s is empty or not text" % (where, k))


def check(doc, version=None):
    """The problems of a parsed CITATION.cff, one string each."""
    problems = []
    if not isinstance(doc, dict):
        return ["the file is not a mapping of keys"]
    for k in REQUIRED:
        if k not in doc:
            problems.append("%s is missing (required)" % k)
    for k, v in doc.items():
        kind = TOP.get(k)
        if kind is None:
            problems.append("%s is not a key of CFF 1.2.0" % k)
        elif kind == "text" and not text(v):
            problems.append("%s is empty or not text" % k)
        elif kind == "texts" and not (isinstance(v, list) and v and
                                      all(text(x) for x in v) and
                                      len(set(v)) == len(v)):
            problems.append("%s is not a list of distinct texts" % k)
        elif kind == "people":
            if not isinstance(v, list) or not v:
                problems.append("%s is not a non-empty list" % k)
            else:
                for i, p in enumerate(v):
                    check_person(p, "%s[%d]" % (k, i), problems)
        elif kind == "date" and not isinstance(v, datetime.date):
            problems.append("%s is not a date (YYYY-MM-DD)" % k)
        elif kind == "url" and not (isinstance(v, str) and re.match(
                r"^(https|http|ftp|sftp)://.+", v)):
            problems.append("%s is not a URL" % k)
        elif kind == "doi" and not (isinstance(v, str) and
                                    re.match(r"^10\.\d{4,9}(\.\d+)?/.+", v)):
            problems.append("%s is not a DOI" % k)
        elif kind == "type" and v not in ("software", "dataset"):
            problems.append("type is software or dataset, not %r" % (v,))
        elif kind == "version" and not (text(v) or
                                        isinstance(v, (int, float))):
            problems.append("version is empty")
        elif kind == "license":
            ids = v if isinstance(v, list) else [v]
            for x in ids:
                if x not in SPDX:
                    problems.append("license %r is not an SPDX identifier "
                                    "this check knows" % (x,))
        elif kind in ("list", "dict") and not isinstance(
                v, list if kind == "list" else dict):
            problems.append("%s is not a %s" % (k, "list" if kind == "list"
                                                 else "mapping"))
    if doc.get("cff-version") != "1.2.0":
        problems.append("cff-version is %r, not \"1.2.0\""
                        % (doc.get("cff-version"),))
    if version is not None and str(doc.get("version")) != version:
        problems.append("version is %r, the program's is %s"
                        % (doc.get("version"), version))
    return problems


def main(argv):
    if not argv or argv[0].startswith("-"):
        sys.stderr.write("usage: cffcheck.py FILE [--version V]\n")
        return 2
    version = None
    if len(argv) == 3 and argv[1] == "--version":
        version = argv[2]
    with open(argv[0], encoding="utf-8") as f:
        try:
            doc = yaml.safe_load(f)
        except yaml.YAMLError as e:
            print("%s: not YAML: %s" % (argv[0], e))
            return 1
    problems = check(doc, version)
    for p in problems:
        print("%s: %s" % (argv[0], p))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
