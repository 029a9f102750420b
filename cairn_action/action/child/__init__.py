"""The sandboxed evaluation: the run as a child process under another uid, in a scratch folder outside the
workspace (`sandbox`), with the index cache carried between jobs (`index_folder`), and the scoring and the
gate back in the trusted process (`supervisor`, which starts the child and judges what it wrote).
"""
