// `import SQLite` brings the values and rows every source shares.
@_exported import SQLCore
