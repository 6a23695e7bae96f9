# my pipeline
