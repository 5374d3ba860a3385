"""The published book: everything that builds or post-processes the site Jupyter Book makes.

- ``sphinx_extension``  the Sphinx extension ``_config.yml`` loads: NPU-cell badges, the status page, run times,
                        repository buttons, no build-machine paths, and at the end of the build the steps below
- ``settings``          the one repository setting (``COURSE_REPOSITORY``, ``COURSE_JUPYTERHUB``, ``COURSE_SITE_URL``)
- ``paths``             build-machine paths shown as neutral names on pages and in downloads
- ``postprocess``       lighter pages, Chinese interface strings, readable figures on phones, the 404 page
- ``download_notebooks``  the executed notebooks offered for download (they install ``npulab`` from the site)
- ``wheel``             the ``npulab`` wheel the site serves
- ``browser_tools``     the in-browser tools page (Pyodide served by the site)
- ``run_page``, ``status_page``  the run-on-NPU page and the course status page (the learning path: course.book_toc)
"""
