// Vite's `?raw` imports: a file's text, bundled (the sample chaincode's sources).
declare module '*?raw' {
  const text: string;
  export default text;
}
