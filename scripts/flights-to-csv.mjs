// flights-3m.parquet (vega-datasets) -> CSV lines `YYYY-MM-DD HH:MM,delay,distance,origin,destination`.
// Run by fetch-flights.sh with hyparquet and hyparquet-compressors (npm) installed beside it.
// The parquet's dates are naive local departure times stored as UTC; we print them as stored.
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import fs from 'fs'

const [, , input, output] = process.argv
const file = await asyncBufferFromFile(input)
const metadata = await parquetMetadataAsync(file)
const out = fs.createWriteStream(output)
let rowStart = 0
for (const group of metadata.row_groups) {
  const rowEnd = rowStart + Number(group.num_rows)
  const rows = await parquetReadObjects({ file, metadata, rowStart, rowEnd, compressors })
  const lines = rows.map(r => {
    const when = r.date.toISOString().slice(0, 16).replace('T', ' ')
    return `${when},${r.delay},${r.distance},${r.origin},${r.destination}\n`
  })
  if (!out.write(lines.join(''))) await new Promise(resolve => out.once('drain', resolve))
  rowStart = rowEnd
}
await new Promise((resolve, reject) => out.end(err => (err ? reject(err) : resolve())))
